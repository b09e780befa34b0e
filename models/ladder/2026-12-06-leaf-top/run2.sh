#!/usr/bin/env bash
# Phase 2 of README.md, resumable per file: run2.sh step45 | step56 | l4ab4 | row6 | row5
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-06-leaf-top
B=target/release/iron-arena
O='+null=2+trade=50+enemydial=250'
L4v3="hleaf:models/leaf-v3.bin:4$O" L5v3="hleaf:models/leaf-v3.bin:5$O" L6v3="hleaf:models/leaf-v3.bin:6$O"
BELOW='random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:1 level:2 level:3'
case "$1" in
step45) $B ladder "$L5v3" level:4 --games 72 --seed 4684 --out $D/step45.jsonl --moves | tee $D/step45.txt ;;
step56) $B ladder "$L6v3" "$L5v3" --games 72 --seed 4685 --out $D/step56.jsonl --moves | tee $D/step56.txt ;;
l4ab4) $B ladder "$L4v3" alphabeta:4 --games 72 --seed 4664 --out $D/l4ab4.jsonl --moves | tee $D/l4ab4.txt ;;
row6) $B ladder $BELOW "$L6v3" --with hybridqrleaf:600000 --games 36 --seed 4687 --out $D/row6.jsonl --moves | tee $D/row6.txt ;;
row5) $B ladder $BELOW "$L5v3" --with hybridqrleaf:233333 --games 36 --seed 4686 --out $D/row5.jsonl --moves | tee $D/row5.txt ;;
*) echo "usage: $0 step45|step56|l4ab4|row6|row5" >&2; exit 2 ;;
esac
