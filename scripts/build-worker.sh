#!/usr/bin/env bash
# Builds the Workers module (build/worker/shim.mjs + wasm) with worker-build, using the
# local wasm-bindgen (worker-build's own GitHub download cannot be reached here) and no
# wasm-opt (it costs minutes and saves little after gzip).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
worker-build --profile worker --no-opt
wasm=build/index_bg.wasm
echo "wasm: $(stat -c %s $wasm) bytes raw, $(gzip -9c $wasm | wc -c) bytes gzip"
