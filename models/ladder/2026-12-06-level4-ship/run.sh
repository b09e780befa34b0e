#!/bin/bash
# Level 4's ladder games with its new search (README.md). Resumable: each `ladder` run started
# again with the same arguments plays only the games its file lacks.
#   cargo build --release --locked -p cli --features onnx
#   nice -n 19 models/ladder/2026-12-06-level4-ship/run.sh
set -e
cd "$(dirname "$0")/../../.."
# The games must be level 4's new search: refuse to play them with another.
grep -q '"0a56c05b1bd24795"' crates/ai/tests/signature.rs || { echo "level 4's candidate is not applied: git apply docs/experiments/patches/2026-12-06-level4-candidate.diff, then rebuild" >&2; exit 1; }
D=models/ladder/2026-12-06-level4-ship
B=${B:-target/release/iron-arena}
run() { out=$1; shift; $B ladder "$@" --out $D/$out.jsonl > $D/$out.txt 2>&1; }
run row-4 random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:1 level:2 level:3 level:4 level:5 level:6 \
    --with level:4 --games 36 --seed 4650
run steps-3-4 level:3 level:4 --games 72 --seed 4651
run steps-4-5 level:4 level:5 --games 72 --seed 4652
echo ALLDONE
