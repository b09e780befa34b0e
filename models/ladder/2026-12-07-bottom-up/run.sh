#!/usr/bin/env bash
# The games of README.md, resumable per file: run.sh screen | confirm N | rows N
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-07-bottom-up
B=target/release/iron-arena
C2=net:models/net-v8.onnx:48+decisive+cheap=4000
C2L=net:48+decisive+cheap4000
c1() { echo "net:models/net-v8.onnx:24+decisive+cheap=$1"; }
case "${1:-}" in
screen) for n in 250 500 1000; do
          $B ladder "$(c1 $n)" "$C2" --games 36 --seed 4740 --out $D/screen$n.jsonl --moves | tee $D/screen$n.txt
        done ;;
confirm) n=$2
         $B ladder "$(c1 $n)" "$C2" --games 144 --seed 4741 --out $D/low.jsonl --moves | tee $D/low.txt
         $B ladder "$C2" level:3 --games 144 --seed 4742 --out $D/high.jsonl --moves | tee $D/high.txt ;;
rows) n=$2
      $B ladder "$(c1 $n)" random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:3 level:4 level:5 level:6 --with net:24+decisive+cheap$n --games 36 --seed 4743 --out $D/row1.jsonl --moves | tee $D/row1.txt
      $B ladder "$C2" random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:4 level:5 level:6 --with $C2L --games 36 --seed 4744 --out $D/row2.jsonl --moves | tee $D/row2.txt ;;
*) echo "usage: run.sh screen | confirm N | rows N" >&2; exit 2 ;;
esac
