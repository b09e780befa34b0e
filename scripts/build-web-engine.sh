#!/usr/bin/env bash
# Builds the rules engine for the browser (crates/engine-wasm) into public/engine/:
# engine_wasm.js (the ES module wasm-bindgen writes for `--target web`) and
# engine_wasm_bg.wasm, served as static assets and loaded by public/notation.js; and the
# AI for the browser (crates/ai-wasm): ai_wasm.js and ai_wasm_bg.wasm, loaded only by the
# Web Worker public/ai-worker.js when a page asks the AI (a hint).
# Also renders the rules dialog's page, public/rules.md, to HTML: public/rules.htm, and the
# API's (docs/api.md): public/api.htm (crates/docs-html, pulldown-cmark; public/modals.js
# shows them).
# Uses the local wasm-bindgen CLI (.tools/bin, the version in Cargo.lock; installed by
# scripts/setup.sh): nothing is downloaded. The output is generated, not committed
# (.gitignore); build-worker.sh, run.sh, test.sh and e2e.sh call this script.
# Quick when nothing changed (cargo's incremental check, then one wasm-bindgen run).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
# The Worker's profile (opt "s", fat LTO, no debug info): small, and fast enough.
cargo build --locked -p engine-wasm -p ai-wasm --target wasm32-unknown-unknown --profile worker
out=public/engine
mkdir -p "$out"
# Written outside public/ first, then only what changed is put in place (put_in_place in
# env.sh): every running `wrangler dev` serves public/ and reloads when a file there changes.
mkdir -p "$ROOT/target"
stage=$(mktemp -d "$ROOT/target/.web-engine.XXXXXX")
trap 'rm -rf "$stage"' EXIT
# Without the name and producers sections: 24 KB less (8 KB gzip); panics still say what.
for crate in engine_wasm ai_wasm; do
    wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
        --out-dir "$stage" "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/worker/$crate.wasm"
    for f in ${crate}_bg.wasm $crate.js; do
        put_in_place "$stage/$f" "$out/$f"
    done
done
# The rules page, rendered here rather than by the client: no Markdown renderer to download
# (public/markdown.js was 2.8 KB, loaded with every page), and CommonMark as written.
cargo run --locked -q -p docs-html <public/rules.md >"$stage/rules.htm"
put_in_place "$stage/rules.htm" public/rules.htm
cargo run --locked -q -p docs-html <docs/api.md >"$stage/api.htm"
put_in_place "$stage/api.htm" public/api.htm
wasm=$out/engine_wasm_bg.wasm
echo "browser engine ($out): $(stat -c %s $wasm) bytes raw, $(gzip -9c $wasm | wc -c) bytes gzip;" \
    "glue $(stat -c %s $out/engine_wasm.js) bytes; rules page (public/rules.htm)" \
    "$(stat -c %s public/rules.htm) bytes raw, $(gzip -9c public/rules.htm | wc -c) bytes gzip"
ai=$out/ai_wasm_bg.wasm
echo "browser AI ($out, fetched by a page's first hint): $(stat -c %s $ai) bytes raw, $(gzip -9c $ai | wc -c)" \
    "bytes gzip; glue $(stat -c %s $out/ai_wasm.js) bytes"
