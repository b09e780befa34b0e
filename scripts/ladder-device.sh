#!/usr/bin/env bash
# The expensive half of the shipped ladder (issue 32), for a machine with many cores: the
# pairs with level 5 or 6 (the round robin's other pairs are cheap: scripts/ladder.sh runs
# them), and the strongest level against alphabeta:5. Takes the release CLI built with
# `cargo build --release --locked -p cli --features onnx` (copied to BIN) and writes the
# games (one JSON line each) to OUT; `iron-arena ladder-fit` fits all files together.
#   BIN=target/release/iron-arena OUT=/tmp/ladder SECONDS_LIMIT=500 scripts/ladder-device.sh
set -u
BIN=${BIN:-target/release/iron-arena}
OUT=${OUT:-models/ladder}
LIMIT=${SECONDS_LIMIT:-100000}
cores=$(nproc)
main=$((cores * 13 / 16)); [ "$main" -lt 1 ] && main=1
last=$((cores - 1))
mkdir -p "$OUT"
# Pins each run to its share of the cores (the ladder uses every core it is given).
pin() { if command -v taskset >/dev/null; then taskset -c "$@"; else shift; "$@"; fi; }
players="random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:1 level:2 level:3 level:4 level:5 level:6"
pin 0-$((main - 1)) "$BIN" ladder $players --with level:5,level:6 --games 36 --seed 331 \
    --anchor random --seconds "$LIMIT" --out "$OUT/upper.jsonl" >"$OUT/upper.txt" 2>&1 &
pin "$main-$last" "$BIN" ladder level:6 alphabeta:5 --games 36 --seed 327 \
    --seconds "$LIMIT" --out "$OUT/top6-ab5.jsonl" >"$OUT/top6-ab5.txt" 2>&1 &
wait
