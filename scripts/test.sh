#!/usr/bin/env bash
# Runs every test of the project: formatting, lints, the Rust test suites (including the
# API tests against the real Workers runtime), and the engine's wasm32 build.
# Installs what is missing first (scripts/setup.sh). The README's test command.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
scripts/setup.sh

echo "== rustfmt"
cargo fmt --all --check
echo "== clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== engine builds for wasm32"
cargo check -p engine --target wasm32-unknown-unknown --locked
echo "== the Worker with the network AI (feature net: tract in wasm) passes clippy for wasm32"
cargo clippy --locked -p iron-arena-worker --features net --target wasm32-unknown-unknown -- -D warnings
echo "== build the Workers module"
scripts/build-worker.sh
echo "== tests"
cargo test --workspace --locked
echo "== the network: tract runs the shipped model as its trainer did; training smoke"
# A debug build: tract compiles in a third of the release time, and four inferences and
# two 8-evaluation self-play games need no optimiser.
cargo build --locked -p cli --features onnx
for m in models/net-v*.onnx; do
    target/debug/iron-arena check-model "$m" "${m%.onnx}.reference.json"
done
IRON_ARENA_BIN=target/debug/iron-arena REQUIRE_TRACT=1 training/smoke.sh
echo "== browser end-to-end tests (headless Chromium, screenshots in test-output/)"
scripts/e2e.sh
echo "== all tests passed"
