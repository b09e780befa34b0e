#!/usr/bin/env bash
# Installs what the project needs on a fresh machine to run the game (`scripts/run.sh`);
# with `--tests`, also what only the tests need: the API fuzzer's and the training smoke's
# Python environments, Chromium's headless shell and curl (Debian packages: apt-get, as
# root or through sudo). Idempotent and quick once done;
# only the registries this machine reaches (rustup's dist server, crates.io, PyPI, npm,
# Debian). The downloads (Python venvs, npm packages, Chromium) run in the background
# while wasm-bindgen compiles, the one install that needs the CPU.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

rustup target add wasm32-unknown-unknown >/dev/null
rustup component add clippy rustfmt >/dev/null

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
jobs_started=()
background() {  # background NAME COMMAND...: runs it, its output in $logs/NAME
    local name=$1
    shift
    "$@" >"$logs/$name" 2>&1 &
    jobs_started+=("$name:$!")
}

# schemathesis (the OpenAPI-driven fuzzer of the API tests), pinned with its whole tree.
install_test_venv() {
    python3 -m venv .tools/venv
    .tools/venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
    cp tests/requirements.txt .tools/venv/requirements.txt
}
tests=false
[ "${1:-}" != --tests ] || tests=true
if $tests; then
    cmp -s tests/requirements.txt .tools/venv/requirements.txt 2>/dev/null || background test-venv install_test_venv
    # The training stack (JAX, for the tests' training smoke; a large download), pinned:
    # training/smoke.sh makes it.
    background train-venv training/smoke.sh --venv-only
fi

# Debian's Chromium headless shell for the browser tests (driven by playwright-core from
# npm): the same Blink and V8 as the full browser without its UI layers; the browser files
# took 270-284 CPU-s with it against 437 with the full browser (tests/e2e/support.mjs).
# curl: the load benchmark's smoke and the AI benchmark talk HTTP with it.
apt_packages=()
if $tests; then
    [ -x /usr/bin/chromium-headless-shell ] || apt_packages+=(chromium-headless-shell)
    command -v curl >/dev/null || apt_packages+=(curl)
fi
if [ ${#apt_packages[@]} -gt 0 ]; then
    sudo=()
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    background apt "${sudo[@]}" bash -c \
        "apt-get update -qq && apt-get install -y -qq ${apt_packages[*]} >/dev/null"
fi

# wrangler and, on Linux x64/arm64, a Node 22 (wrangler needs >= 22.12; the machine has 20),
# from package-lock (the Node packages are optional dependencies: elsewhere npm skips them
# and the system's Node must be >= 22.12).
if [ ! -x node_modules/.bin/wrangler ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    background npm npm ci --no-audit --no-fund
fi

# wasm-bindgen (at exactly the library's version in Cargo.lock) into the project's .tools/,
# so builds never download from elsewhere: it writes the JavaScript glue of the Workers
# module and of the browser engine. The project's own front end to wasm-bindgen-cli-support
# (crates/wasm-bindgen: the official CLI's flags the builds use, the same output byte for
# byte), whose 44 crates compile in 58 CPU-s where the official CLI's 161 (its test runner's
# HTTP server and TLS client among them) took 135. Unoptimised: 89 CPU-s for the official
# CLI against 216 at opt-level 1, for 7.5 s of CPU to process the Worker's module instead of
# 2.3 (the same output); a CI run builds it once and runs it twice. Its target directory is
# kept (target/wasm-bindgen), so test.sh runs its unit tests without building it again;
# clippy compiles it (warnings are errors), as it does the project's other crates.
tool=crates/wasm-bindgen
tool_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$tool/Cargo.toml" | head -n 1)
if [ "$tool_version" != "$WASM_BINDGEN_VERSION" ] || ! grep -q "wasm-bindgen-cli-support = \"=$WASM_BINDGEN_VERSION\"" "$tool/Cargo.toml"; then
    echo "$tool/Cargo.toml: its version and its wasm-bindgen-cli-support pin must both be" \
        "$WASM_BINDGEN_VERSION, the wasm-bindgen of Cargo.lock" >&2
    exit 1
fi
if ! .tools/bin/wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WASM_BINDGEN_VERSION (iron-arena)" \
    || [ -n "$(find "$tool" -newer .tools/bin/wasm-bindgen -type f | head -n 1)" ]; then
    echo "installing wasm-bindgen $WASM_BINDGEN_VERSION ($tool; about a minute, once)"
    RUSTC_WORKSPACE_WRAPPER=clippy-driver CLIPPY_ARGS=-Dwarnings CARGO_PROFILE_RELEASE_OPT_LEVEL=0 \
        cargo install --quiet --locked --force --path "$tool" --root .tools --target-dir target/wasm-bindgen
fi

failed=0
for job in "${jobs_started[@]}"; do
    name=${job%%:*}
    if wait "${job##*:}"; then
        echo "installed: $name"
    else
        echo "installing $name failed:" >&2
        cat "$logs/$name" >&2
        failed=1
    fi
done
exit $failed
