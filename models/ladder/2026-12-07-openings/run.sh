#!/usr/bin/env bash
# README.md's games (resumable: replayed.jsonl keeps each game as it ends), then the fit.
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-07-openings
target/release/iron-arena ladder-redo models/ladder/2026-12-07-bottom-up/ladder-c.jsonl \
  --out $D/replayed.jsonl --ladder $D/ladder-d.jsonl --moves --anchor random | tee $D/ladder-d.md
