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
echo "== build the Workers module"
scripts/build-worker.sh
echo "== tests"
cargo test --workspace --locked
echo "== the network: tract runs the shipped model as its trainer did; training smoke"
cargo build --release --locked -p cli --features onnx
target/release/iron-arena check-model models/net-v1.onnx models/net-v1.reference.json
IRON_ARENA_BIN=target/release/iron-arena REQUIRE_TRACT=1 training/smoke.sh
echo "== browser end-to-end tests (headless Chromium, screenshots in test-output/)"
scripts/e2e.sh
echo "== all tests passed"
