#!/bin/bash
# Played with a build of level.rs in which level 2 = Engine::NetworkMcts { evaluations: 48, heuristic: 2000 }.
set -e
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-05-level2-2000
B=target/release/iron-arena
run() { out=$1; shift; $B ladder "$@" --out $D/$out.jsonl > $D/$out.txt 2>&1; }
run row-2 random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:1 level:2 level:3 level:4 level:5 level:6 --with level:2 --games 36 --seed 4621
run steps-1-2 level:1 level:2 --games 72 --seed 4622
run steps-2-3 level:2 level:3 --games 72 --seed 4623
echo ALLDONE
