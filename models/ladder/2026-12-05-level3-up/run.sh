#!/bin/bash
set -e
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-05-level3-up
B=target/release/iron-arena
run() { out=$1; shift; [ -s $D/$out.done ] && return 0; $B ladder "$@" --out $D/$out.jsonl > $D/$out.txt 2>&1; date > $D/$out.done; }
run replay-level3 random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:1 level:2 level:3 level:4 level:5 level:6 --with level:2,level:3 --games 1 --seed 4602
run row-1 random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:1 level:2 level:3 level:4 level:5 level:6 --with level:1 --games 36 --seed 4611
run pair-2-3 level:2 level:3 --games 36 --seed 4612
run steps-1-2 level:1 level:2 --games 72 --seed 4613
run steps-2-3 level:2 level:3 --games 72 --seed 4614
run steps-3-4 level:3 level:4 --games 72 --seed 4615
echo ALLDONE
