#!/usr/bin/env bash
# Runs every test of the project: formatting, lints, the Rust test suites, and the
# engine's wasm32 build. The README's test command; CI runs it after .ci/run's installs.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== rustfmt"
cargo fmt --all --check
echo "== clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== tests"
cargo test --workspace --locked
echo "== engine builds for wasm32"
cargo check -p engine --target wasm32-unknown-unknown --locked
echo "== all tests passed"
