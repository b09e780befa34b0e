#!/bin/bash
# The ladder's games that the search fix (docs/experiments/patches/2026-12-06-search-refuted-best-and-end-row-arrivals.diff,
# signature 8d31f12b37559f54) changes: the rows of levels 3-6, the extra games at the steps
# 2-3 to 5-6, and the top-strength matches, played with the fixed search. Resumable: each
# `ladder` run started again with the same arguments plays only the games its file lacks.
#   cargo build --release --locked -p cli --features onnx
#   nice -n 19 models/ladder/2026-12-06-search-fix/run.sh
set -e
cd "$(dirname "$0")/../../.."
# The games must be the fixed search's: refuse to play them with the search main ships.
grep -q '"8d31f12b37559f54"' crates/ai/tests/signature.rs || {
    echo "the search fix is not applied: git apply docs/experiments/patches/2026-12-06-search-refuted-best-and-end-row-arrivals.diff, then rebuild" >&2
    exit 1
}
D=models/ladder/2026-12-06-search-fix
B=${B:-target/release/iron-arena}
run() { out=$1; shift; $B ladder "$@" --out $D/$out.jsonl > $D/$out.txt 2>&1; }
run rows-3-6 random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:1 level:2 level:3 level:4 level:5 level:6 \
    --with level:3,level:4,level:5,level:6 --games 36 --seed 4630
run steps-2-3 level:2 level:3 --games 72 --seed 4631
run steps-3-4 level:3 level:4 --games 72 --seed 4632
run steps-4-5 level:4 level:5 --games 72 --seed 4633
run steps-5-6 level:5 level:6 --games 72 --seed 4634
run level4-alphabeta4 level:4 alphabeta:4 --games 72 --seed 4635
run level6-alphabeta5 level:6 alphabeta:5 --games 72 --seed 4636
echo ALLDONE
