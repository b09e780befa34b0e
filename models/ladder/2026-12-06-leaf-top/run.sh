#!/usr/bin/env bash
# The games of README.md, resumable per file: run.sh data | train | g1 | g2 | g3
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-06-leaf-top
B=target/release/iron-arena
L6v3='hleaf:models/leaf-v3.bin:6+null=2+trade=50+enemydial=250'  # train writes data/leaf-v3.bin; the same bytes are committed here
case "$1" in
data)
    training/selfplay-chunks.sh data/leaf-top 36 108 81 \
        --engine 'hleaf:models/leaf-v1.bin:4+null=2+trade=50+enemydial=250+nodes=12000'
    for f in data/leaf-top/chunk-*.jsonl; do
        [ -s "${f%.jsonl}.bin" ] || $B leaf-data "$f" --out "${f%.jsonl}.bin"
    done ;;
train)
    .tools/train-venv/bin/python training/train_leaf.py $(for f in data/leaf-top/chunk-*.bin; do echo --data $f; done) \
        --out data/leaf-v3.bin --steps 12000 --hidden 32 --mirror --value-mix 0.5 ;;
g1) $B ladder "$L6v3" level:4 --games 72 --seed 4680 --out $D/g1.jsonl --moves | tee $D/g1.txt ;;
g2) $B ladder "$L6v3" alphabeta:5 --games 36 --seed 4681 --out $D/g2.jsonl --moves | tee $D/g2.txt ;;
g3) $B ladder "$L6v3" level:6 --games 36 --seed 4682 --out $D/g3.jsonl --moves | tee $D/g3.txt ;;
*) echo "usage: $0 data|train|g1|g2|g3" >&2; exit 2 ;;
esac
