#!/bin/bash
# The null-move screens (README.md). Resumable: a `ladder` run started again with the same
# arguments plays only the games its file lacks.
#   cargo build --release --locked -p cli
#   nice -n 19 models/ladder/2026-12-06-null-move/run.sh
set -e
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-06-null-move
B=${B:-target/release/iron-arena}
L=hleaf:models/leaf-v1.bin:4
$B ladder $L+null=2 alphabeta:4 --games 72 --seed 4635 --moves --out $D/null-2.jsonl > $D/null-2.txt 2>&1 &
$B ladder $L+null=3 alphabeta:4 --games 72 --seed 4635 --moves --out $D/null-3.jsonl > $D/null-3.txt 2>&1 &
wait
echo ALLDONE
# The confirmation of R = 2 (README.md), on new openings:
#   $B ladder $L+null=2 alphabeta:4 --games 144 --seed 4640 --moves --out $D/confirm-null-2.jsonl
