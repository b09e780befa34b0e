#!/usr/bin/env bash
# The probe of README.md, resumable per file: run.sh screen16 | screen32 | row | row-top
# (row and row-top with CAND, LABEL and SUFFIX set: C32's files have none, C24's "24"; screen24 for C24)
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-07-level1-room
B=target/release/iron-arena
case "${1:-}" in
screen16) $B ladder net:models/net-v8.onnx:16+decisive level:2 --games 72 --seed 4701 --out $D/screen16.jsonl --moves | tee $D/screen16.txt ;;
screen32) $B ladder net:models/net-v8.onnx:32+decisive level:2 --games 72 --seed 4702 --out $D/screen32.jsonl --moves | tee $D/screen32.txt ;;
screen24) $B ladder net:models/net-v8.onnx:24+decisive level:2 --games 72 --seed 4704 --out $D/screen24.jsonl --moves | tee $D/screen24.txt ;;
# the chosen candidate's row (CAND: its spec), split in two files so two cores play it
row) $B ladder "$CAND" random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:3 --with "$LABEL" --games 36 --seed "${SEED:-4703}" --out "$D/row${SUFFIX:-}.jsonl" --moves | tee "$D/row${SUFFIX:-}.txt" ;;
row-top) $B ladder "$CAND" level:4 level:5 level:6 --with "$LABEL" --games 36 --seed "${SEED:-4703}" --out "$D/row-top${SUFFIX:-}.jsonl" --moves | tee "$D/row-top${SUFFIX:-}.txt" ;;
*) echo "usage: run.sh screen16 | screen32 | screen24 | row | row-top" >&2; exit 2 ;;
esac
