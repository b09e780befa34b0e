#!/bin/bash
# README.md: the candidate's options at 80,000 leaf-scored positions against alphabeta:4, 144 new
# openings. Resumable (a `ladder` run with the same arguments plays only the games its file lacks).
#   cargo build --release --locked -p cli --features onnx
#   nice -n 19 models/ladder/2026-12-06-level4-time/run.sh
set -e
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-06-level4-time
B=${B:-target/release/iron-arena}
L=hleaf:models/leaf-v1.bin:4
if [ -z "${1:-}" ]; then
    $B ladder $L+null=2+trade=50+enemydial=250+nodes=80000 alphabeta:4 --games 144 --seed 4660 --moves --out $D/confirm-80000.jsonl > $D/confirm-80000.txt 2>&1
    echo ALLDONE
fi
# Level 4's ladder games at 80,000 positions (README.md, "The row"): played by a build with the
# candidate at 80,000 positions as level 4 (`level:4`); alphabeta:4's games are confirm-80000's 144.
#   B=<that build> nice -n 19 models/ladder/2026-12-06-level4-time/run.sh row
# Stopped at 15:13 with 268 of the row's 324 games played (README.md, "Results").
if [ "${1:-}" = row ]; then
    $B ladder random alphabeta:1 alphabeta:2 alphabeta:3 level:1 level:2 level:3 level:4 level:5 level:6 \
        --with level:4 --games 36 --seed 4661 --out $D/row-4-80000.jsonl > $D/row-4-80000.txt 2>&1
    $B ladder level:3 level:4 --games 72 --seed 4662 --out $D/steps-3-4.jsonl > $D/steps-3-4.txt 2>&1
    $B ladder level:4 level:5 --games 72 --seed 4663 --out $D/steps-4-5.jsonl > $D/steps-4-5.txt 2>&1
    echo ROWDONE
fi
# The confirmation at 72,000 positions (README.md, "72,000 positions", written before its games).
if [ "${1:-}" = 72000 ]; then
    $B ladder $L+null=2+trade=50+enemydial=250+nodes=72000 alphabeta:4 --games 144 --seed 4664 --moves --out $D/confirm-72000.jsonl > $D/confirm-72000.txt 2>&1
    echo DONE72000
fi
# Level 4's ladder games at 72,000 positions (README.md, "72,000: the row"): a build with level 4 at
# 72,000 (`alphabeta_nodes` 108,000); alphabeta:4's games are confirm-72000's 144.
if [ "${1:-}" = row72 ]; then
    $B ladder random alphabeta:1 alphabeta:2 alphabeta:3 level:1 level:2 level:3 level:4 level:5 level:6 \
        --with level:4 --games 36 --seed 4665 --out $D/row-4.jsonl > $D/row-4.txt 2>&1
    $B ladder level:3 level:4 --games 72 --seed 4666 --out $D/steps-3-4.jsonl > $D/steps-3-4.txt 2>&1
    $B ladder level:4 level:5 --games 72 --seed 4667 --out $D/steps-4-5.jsonl > $D/steps-4-5.txt 2>&1
    echo ROW72DONE
fi
