#!/usr/bin/env bash
# The games of README.md, resumable per file: run.sh a-low | a-top | b | row (in that order: a-low, b, a-top, then row if rule (i) holds)
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-07-steps-144
B=target/release/iron-arena
C=net:models/net-v8.onnx:48+decisive+cheap=3000
CL=net:48+decisive+cheap3000
case "${1:-}" in
a-low)
  $B ladder level:1 level:2 --games 72 --seed 4720 --out $D/a12.jsonl --moves | tee $D/a12.txt
  $B ladder level:2 level:3 --games 36 --seed 4721 --out $D/a23.jsonl --moves | tee $D/a23.txt ;;
a-top)
  $B ladder level:3 level:4 --games 36 --seed 4722 --out $D/a34.jsonl --moves | tee $D/a34.txt
  $B ladder level:4 level:5 --games 72 --seed 4723 --out $D/a45.jsonl --moves | tee $D/a45.txt
  $B ladder level:5 level:6 --games 72 --seed 4724 --out $D/a56.jsonl --moves | tee $D/a56.txt ;;
b)
  $B ladder level:1 "$C" --games 144 --seed 4725 --out $D/b-low.jsonl --moves | tee $D/b-low.txt
  $B ladder "$C" level:3 --games 144 --seed 4726 --out $D/b-high.jsonl --moves | tee $D/b-high.txt ;;
row) $B ladder "$C" random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:4 level:5 level:6 --with $CL --games 36 --seed 4727 --out $D/row.jsonl --moves | tee $D/row.txt ;;
*) echo "usage: run.sh a-low | a-top | b | row (in that order: a-low, b, a-top, then row if rule (i) holds)" >&2; exit 2 ;;
esac
