#!/usr/bin/env bash
# Installs what the project needs on a fresh machine (idempotent; only the registries
# this machine reaches: rustup's dist server, crates.io).
set -euo pipefail
rustup target add wasm32-unknown-unknown
rustup component add clippy rustfmt
