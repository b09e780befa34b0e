#!/usr/bin/env bash
# Runs the game locally. Until the Workers backend lands (issue 3) this is a terminal
# game against another human at the same keyboard: `scripts/run.sh [south] [north]`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --release --locked -p cli --bin iron-arena -- play "${1:-clockwork}" "${2:-blades}"
