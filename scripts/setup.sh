#!/usr/bin/env bash
# Installs what the project needs on a fresh machine. Idempotent and quick once done;
# only the registries this machine reaches (rustup's dist server, crates.io, npm).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

rustup target add wasm32-unknown-unknown >/dev/null
rustup component add clippy rustfmt >/dev/null

# worker-build and wasm-bindgen (the CLI at exactly the library's version in Cargo.lock)
# into the project's .tools/, so builds never download from elsewhere.
if ! .tools/bin/worker-build --version 2>/dev/null | grep -q "$WORKER_BUILD_VERSION"; then
    echo "installing worker-build $WORKER_BUILD_VERSION (a few minutes, once)"
    cargo install worker-build --version "$WORKER_BUILD_VERSION" --locked --root .tools
fi
if ! .tools/bin/wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
    echo "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
    # Not --locked: its lockfile pins a crate version the registry lacks (PLATFORM-NOTES).
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --root .tools
fi

# schemathesis (the OpenAPI-driven fuzzer of the API tests), pinned with its whole tree.
if ! cmp -s tests/requirements.txt .tools/venv/requirements.txt 2>/dev/null; then
    python3 -m venv .tools/venv
    .tools/venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
    cp tests/requirements.txt .tools/venv/requirements.txt
fi

# Debian's Chromium for the browser tests (driven by playwright-core from npm).
if [ ! -x /usr/bin/chromium ]; then
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi

# wrangler and, on Linux x64/arm64, a Node 22 (wrangler needs >= 22.12; the machine has 20),
# from package-lock (the Node packages are optional dependencies: elsewhere npm skips them
# and the system's Node must be >= 22.12).
if [ ! -x node_modules/.bin/wrangler ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
fi
