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
$B ladder $L+null=2+trade=50+enemydial=250+nodes=80000 alphabeta:4 --games 144 --seed 4660 --moves --out $D/confirm-80000.jsonl > $D/confirm-80000.txt 2>&1
echo ALLDONE
