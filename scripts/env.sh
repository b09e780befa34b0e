# Sourced by the scripts: the project's own tools first on PATH (Node 22 and wrangler
# from node_modules, wasm-bindgen from .tools), wrangler kept offline.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$ROOT/node_modules/.bin:$ROOT/.tools/bin:$PATH"
export WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false DO_NOT_TRACK=1
export CLOUDFLARE_CF_FETCH_ENABLED=false
# The wasm-bindgen CLI scripts/setup.sh installs and the builds expect: the library's
# version in Cargo.lock (they must match exactly).
WASM_BINDGEN_VERSION="$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3; exit}' "$ROOT/Cargo.lock")"
# Node's compile cache (Node >= 22.1) for every Node process the scripts and tests start:
# wrangler's 15 MB bundle is compiled once, not at each of the ~45 `wrangler dev` starts of a
# test run (a start with a link game measured 2.7 CPU-s, then 2.2 with the cache warm).
export NODE_COMPILE_CACHE="$ROOT/target/node-compile-cache"
# put_in_place SRC DEST: moves SRC to DEST by a rename (a reader never sees half a file),
# unless DEST already holds the same bytes (then SRC is dropped and DEST left untouched).
# A running `wrangler dev` reloads its Worker on any change to the module's files or to
# public/, dropping requests and WebSockets in flight: an unchanged rebuild (e2e.sh's, while
# the real-runtime suites run) must change nothing.
put_in_place() {
    if cmp -s "$1" "$2"; then rm -f "$1"; else mv -f "$1" "$2"; fi
}
