#!/usr/bin/env bash
# The probe of README.md, resumable per file: run.sh low | high | row | row-top | low3000 | high3000
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-07-level2-even
B=target/release/iron-arena
C2=net:models/net-v8.onnx:48+decisive+cheap=4000
L1=net:models/net-v8.onnx:24+decisive
case "${1:-}" in
# level 1 first, as in ../2026-12-07-level1-room/screen24.jsonl (net:24 against level:2), so the games pair
low) $B ladder "$L1" "$C2" --games 72 --seed 4704 --out $D/low.jsonl --moves | tee $D/low.txt ;;
high) $B ladder "$C2" level:3 --games 72 --seed 4706 --out $D/high.jsonl --moves | tee $D/high.txt ;;
row) $B ladder "$C2" random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 --with net:48+decisive+cheap4000 --games 36 --seed 4707 --out $D/row.jsonl --moves | tee $D/row.txt ;;
row-top) $B ladder "$C2" level:4 level:5 level:6 --with net:48+decisive+cheap4000 --games 36 --seed 4707 --out $D/row-top.jsonl --moves | tee $D/row-top.txt ;;
low3000) $B ladder "$L1" net:models/net-v8.onnx:48+decisive+cheap=3000 --games 72 --seed 4704 --out $D/low3000.jsonl --moves | tee $D/low3000.txt ;;
high3000) $B ladder net:models/net-v8.onnx:48+decisive+cheap=3000 level:3 --games 72 --seed 4706 --out $D/high3000.jsonl --moves | tee $D/high3000.txt ;;
*) echo "usage: run.sh low | high | row | row-top | low3000 | high3000" >&2; exit 2 ;;
esac
