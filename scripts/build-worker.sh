#!/usr/bin/env bash
# Builds the Workers module (build/worker/shim.mjs + wasm) with worker-build, using the
# local wasm-bindgen (worker-build's own GitHub download cannot be reached here) and no
# wasm-opt (it costs minutes and saves little after gzip).
#   scripts/build-worker.sh         the shipped module (heuristic AI)        -> build/
#   scripts/build-worker.sh --net   with the network AI (tract, simd128)     -> build-net/
#                                   (its wasm without the function-name section)
# The network build has its own target directory: its RUSTFLAGS differ, and sharing one
# would rebuild everything each time the other is built.
# Also builds the browser's rules engine into public/engine/ (scripts/build-web-engine.sh):
# the module serves public/ as its static assets.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
scripts/build-web-engine.sh
if [ "${1:-}" = "--net" ]; then
    out=build-net
    CARGO_TARGET_DIR=target/net RUSTFLAGS="-C target-feature=+simd128" \
        worker-build --profile worker --no-opt --out-dir "$out" -- --features net
    # The function-name section is 2.8 MB raw / 0.65 MB gzip of this module (issue 10,
    # lever 4); only stack traces use it.
    python3 scripts/wasm-drop-names.py "$out/index_bg.wasm"
else
    out=build
    worker-build --profile worker --no-opt
fi
wasm=$out/index_bg.wasm
echo "wasm ($out): $(stat -c %s $wasm) bytes raw, $(gzip -9c $wasm | wc -c) bytes gzip"
