#!/usr/bin/env bash
# Builds the Workers module: the Worker crate with the network AI (feature `net`: tract
# with simd128) for wasm32, linted by clippy as it compiles, its JavaScript glue by the
# local wasm-bindgen, and the entry src/shim.mjs. Nothing is downloaded, no wasm-opt
# (minutes of binaryen for little after gzip). Two modules, from the same code:
#   scripts/build-worker.sh               the deployed module, into build/ (wrangler.toml
#                                         `main` = build/worker/shim.mjs): `wrangler deploy`
#                                         uploads it (bundling shim.mjs, index.js and the
#                                         wasm), `scripts/run.sh` and the browser tests run
#                                         it, `scripts/check-deploy.sh` checks it
#   scripts/build-worker.sh --test-hooks  the real-runtime suites' module, into
#                                         build/test-hooks/: the same with the tests' fault
#                                         switches (feature `test-hooks`, src/config.rs),
#                                         which the deployed one does not carry
#   (--net is accepted as an alias of no option, for older scripts)
# Both share one target directory (target/net): every dependency is built once. The Worker
# crate itself is compiled for one feature set at a time (a cdylib's file has no hash in
# its name, so cargo keeps one), so building the other module after one recompiles that
# crate and redoes the fat LTO: ~13 s wall, 12 CPU-s (measured: no dependency rebuilt).
# Outputs: public/models/<the Worker's network and leaf scores> (static assets, src/net.rs
# says why),
# OUT/index_bg.wasm (without its function-name and producers sections: 2.8 MB
# raw / 0.65 MB gzip that only stack traces use), OUT/index.js (+ OUT/snippets/),
# OUT/worker/shim.mjs, OUT being build/ or build/test-hooks/.
# Also builds the browser's rules engine into public/engine/ (scripts/build-web-engine.sh):
# the module serves public/ as its static assets.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
features=net
out=build
for arg in "$@"; do
    case "$arg" in
        --net) ;;
        --test-hooks) features=net,test-hooks out=build/test-hooks ;;
        *) echo "usage: scripts/build-worker.sh [--test-hooks]" >&2; exit 2 ;;
    esac
done

# One build at a time (several shells share this tree); the files of build/ are replaced
# one by one by renames, so a running `wrangler dev` never sees a half-written file.
mkdir -p target build
exec 9>target/.build-worker.lock
flock 9

# The browser engine's cargo build runs beside the module's: after it, it took 24 s of
# wall clock (43 CPU-s, its last crate on one core); beside it, it fills the core the
# module's last crate (one core, ~23 s) leaves idle. build-web-engine.sh, after the
# module's cargo build, then finds it built and only runs wasm-bindgen.
cargo build --locked -p engine-wasm --target wasm32-unknown-unknown --profile worker &
engine_build=$!

# The network the Worker plays with, and the leaf scores its searches use, ship as static
# assets, not in the module (src/net.rs fetches them through the ASSETS binding and checks
# their hashes): each name and SHA-256 in src/net.rs must be the manifest's (an entry
# marked `worker_network`, or `worker_leaf`) and the file's, every marked entry must be one
# of them, or the module would refuse it at its first AI move. Copied (by a rename) into
# public/models/ (not in git).
shipped_files=()
for kind in MODEL:worker_network LEAF_V1:worker_leaf LEAF_V3:worker_leaf; do
    const=${kind%%:*} mark=${kind#*:}
    file=$(sed -n "s/^pub const ${const}_FILE: &str = \"\(.*\)\";/\1/p" src/net.rs)
    sha=$(sed -n "s/^pub const ${const}_SHA256: &str = \"\(.*\)\";/\1/p" src/net.rs)
    shipped=$(python3 -c 'import json, sys
m = [x for x in json.load(open("models/manifest.json"))["models"] if x.get(sys.argv[1]) and x["file"] == sys.argv[2]]
print(" ".join((m[0]["file"], m[0]["sha256"])) if len(m) == 1 else "")' "$mark" "$file")
    actual=$(sha256sum "models/$file" | cut -d' ' -f1)
    if [ -z "$file" ] || [ "$file $sha" != "$shipped" ] || [ "$sha" != "$actual" ]; then
        echo "src/net.rs names $file ($sha) as $const; models/manifest.json's $mark entry of that file is" \
            "'$shipped'; models/$file hashes to $actual: they must agree" >&2
        exit 1
    fi
    shipped_files+=("$file")
done
marked=$(python3 -c 'import json
print(" ".join(sorted(x["file"] for x in json.load(open("models/manifest.json"))["models"] if x.get("worker_network") or x.get("worker_leaf"))))')
if [ "$marked" != "$(printf '%s\n' "${shipped_files[@]}" | sort | xargs)" ]; then
    echo "models/manifest.json ships $marked; src/net.rs loads ${shipped_files[*]}: they must agree" >&2
    exit 1
fi
mkdir -p public/models
for f in public/models/*; do
    [ -f "$f" ] || continue
    case " ${shipped_files[*]} " in *" $(basename "$f") "*) ;; *) rm -f "$f" ;; esac
done
for file in "${shipped_files[@]}"; do
    if ! cmp -s "models/$file" "public/models/$file"; then
        cp "models/$file" "public/models/.$file.tmp"
        mv -f "public/models/.$file.tmp" "public/models/$file"
    fi
done

# Its own target directory: the simd128 flag differs from the other wasm32 builds (the
# browser engine), and sharing one would rebuild tract each time.
# WASM_BINDGEN_USE_JS_SYS: wasm-bindgen's macros then use js-sys's futures, as the
# `worker` crate expects (what worker-build 0.8.7 sets for the same build).
# The build is also the Worker's lint: clippy-driver compiles the Worker crate (the crate
# given with -p; `cargo clippy` runs it the same way, as RUSTC_WORKSPACE_WRAPPER, for a
# `cargo check`), so clippy's lints run in the build that makes the module, and warnings
# are errors as in every lint of the project. A separate `cargo clippy` for wasm32 cost
# 95 s of CPU to check worker, web-sys and tract again. The flags never change, so
# builds stay incremental.
target_dir=target/net
CARGO_TARGET_DIR=$target_dir RUSTFLAGS="-C target-feature=+simd128 -D warnings" \
    RUSTC_WORKSPACE_WRAPPER=clippy-driver WASM_BINDGEN_USE_JS_SYS=1 \
    cargo build --locked --lib -p iron-arena-worker --features "$features" \
    --target wasm32-unknown-unknown --profile worker
wait "$engine_build"
scripts/build-web-engine.sh

stage=$out/.staging
rm -rf "$stage"
mkdir -p "$stage/worker"
# `--target module`: an ES module that instantiates the wasm itself. The reset and abort
# flags let the glue replace a trapped instance (src/shim.mjs says how it is used).
wasm-bindgen --target module --out-name index --out-dir "$stage" --no-typescript \
    --experimental-reset-state-function --force-enable-abort-handler \
    --remove-name-section --remove-producers-section \
    "$target_dir/wasm32-unknown-unknown/worker/iron_arena_worker.wasm"
# wasm-bindgen writes a source-phase import (`import source m from "x.wasm"`); wrangler's
# bundler takes the plain import, which the Workers runtime also gives as a
# WebAssembly.Module.
sed -i 's/^import source \([A-Za-z_$][A-Za-z0-9_$]*\) from /import \1 from /' "$stage/index.js"
if grep -q '^import source ' "$stage/index.js"; then echo "index.js: a source-phase import is left" >&2; exit 1; fi
cp src/shim.mjs "$stage/worker/shim.mjs"

# Every Durable Object class of wrangler.toml must be a class of the module and an export
# of the shim (the runtime refuses to start otherwise; better to know here).
for class in $(sed -n 's/^class_name = "\(.*\)"/\1/p' wrangler.toml); do
    grep -q "^export class $class " "$stage/index.js" || { echo "the Worker has no class $class" >&2; exit 1; }
    grep -q "^export const $class = " src/shim.mjs || { echo "src/shim.mjs does not export $class" >&2; exit 1; }
done

# Into place, entry last, and only what changed (put_in_place in env.sh): a running
# `wrangler dev` reloads when one of the module's files changes. What an older build
# (worker-build) left is removed.
rm -rf build/package.json build/.gitignore
mkdir -p "$out/worker"
if ! diff -rq "$stage/snippets" "$out/snippets" >/dev/null 2>&1; then
    rm -rf "$out/snippets"
    mv -f "$stage/snippets" "$out/snippets"
fi
for f in index_bg.wasm index.js worker/shim.mjs; do
    put_in_place "$stage/$f" "$out/$f"
done
rm -rf "$stage"

wasm=$out/index_bg.wasm
echo "wasm ($out/, features $features): $(stat -c %s $wasm) bytes raw, $(gzip -9c $wasm | wc -c) bytes gzip"
