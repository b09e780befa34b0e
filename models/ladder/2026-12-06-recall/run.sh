#!/bin/bash
# The Recall screens (README.md). Resumable.
#   cargo build --release --locked -p cli
#   nice -n 19 models/ladder/2026-12-06-recall/run.sh
set -e
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-06-recall
B=${B:-target/release/iron-arena}
L=hleaf:models/leaf-v1.bin:4
$B ladder $L+dial=250 alphabeta:4 --games 72 --seed 4635 --moves --out $D/dial-250.jsonl > $D/dial-250.txt 2>&1 &
$B ladder $L+recallpen=30 alphabeta:4 --games 72 --seed 4635 --moves --out $D/recallpen-30.jsonl > $D/recallpen-30.txt 2>&1 &
wait
echo ALLDONE
# The second round (README.md, 11:25):
#   $B ladder $L+trade=50 alphabeta:4 --games 72 --seed 4635 --moves --out $D/trade-50.jsonl
#   $B ladder $L+recallpen=100 alphabeta:4 --games 72 --seed 4635 --moves --out $D/recallpen-100.jsonl
# The third round (README.md, 11:35):
#   $B ladder $L+null=2+dial=250+trade=50 alphabeta:4 --games 72 --seed 4635 --moves --out $D/together.jsonl
#   $B ladder $L+null=2+dial=250+trade=50+nodes=100000 alphabeta:4 --games 72 --seed 4635 --moves --out $D/together-100000.jsonl
# The third round's confirmation (README.md):
#   $B ladder $L+null=2+dial=250+trade=50+nodes=100000 alphabeta:4 --games 144 --seed 4641 --moves --out $D/confirm-together-100000.jsonl
# The fourth run (README.md, 11:58):
#   $B ladder $L+null=2+trade=50+enemydial=250+nodes=100000 alphabeta:4 --games 144 --seed 4642 --moves --out $D/confirm-enemydial.jsonl
