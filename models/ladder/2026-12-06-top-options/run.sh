#!/bin/bash
# README.md: levels 5 and 6 with level 4's search options. Resumable (a `ladder` run with the same
# arguments plays only the games its file lacks).
#   cargo build --release --locked -p cli --features onnx
#   nice -n 19 models/ladder/2026-12-06-top-options/run.sh step45|step56|ab5|row5|row6|probe2x
set -e
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-06-top-options
B=${B:-target/release/iron-arena}
O=+null=2+trade=50+enemydial=250
L5=hleaf:models/leaf-v1.bin:5$O
L6=hleaf:models/leaf-v1.bin:6$O
case "${1:-}" in
    step45) $B ladder $L5 level:4 --games 72 --seed 4670 --moves --out $D/step45.jsonl > $D/step45.txt 2>&1 ;;
    step56) $B ladder $L6 $L5 --games 72 --seed 4671 --moves --out $D/step56.jsonl > $D/step56.txt 2>&1 ;;
    ab5) $B ladder $L6 alphabeta:5 --games 36 --seed 4672 --moves --out $D/ab5.jsonl > $D/ab5.txt 2>&1 ;;
    row5) $B ladder random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:1 level:2 level:3 $L5 \
        --with hybridqrleaf:233333 --games 36 --seed 4673 --moves --out $D/row5.jsonl > $D/row5.txt 2>&1 ;;
    row6) $B ladder random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:1 level:2 level:3 level:4 $L6 \
        --with hybridqrleaf:600000 --games 36 --seed 4674 --moves --out $D/row6.jsonl > $D/row6.txt 2>&1 ;;
    probe2x) $B ladder $L6+nodes=1200000 level:6 --games 36 --seed 4675 --moves --out $D/probe2x.jsonl > $D/probe2x.txt 2>&1 ;;
    *) echo "usage: run.sh step45|step56|ab5|row5|row6|probe2x" >&2; exit 2 ;;
esac
echo "DONE ${1}"
