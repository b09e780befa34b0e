#!/usr/bin/env bash
# The AI strength report (issues 4 and 10), a benchmark rather than a test: the AI the
# Worker ships, at its default level, against
#   (a) MCTS over the heuristic at that level (the gate), the alpha-beta sparring partner
#       at depths 2 and 3, each GATE_GAMES games per match-up;
#   (b) heuristic-evaluator MCTS and uniform-prior MCTS with 10x its time, TENX_GAMES;
#   (c) a random mover, one game per match-up;
# every match over all nine match-ups, the shipped AI playing both colours; then the
# balance table of the default level (the shipped AI against itself, BALANCE_GAMES).
# The shipped AI is `level:N` (ai::shipped, over models/: at the default level the
# alpha-beta with the learned leaf score at every leaf). "10x the time" is
# turned into evaluation budgets from speeds measured in the same run (`bench-ai` for MCTS,
# `bench-leaf` for the level as it ships), so the results do not depend on how loaded the
# machine is while the games run.
#   scripts/strength.sh [GATE_GAMES (default 4)] [TENX_GAMES (default 2)] [BALANCE_GAMES (default 8)]
# SEED (default 1) seeds every match: another seed plays other games, to add to a sample.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
gate_games=${1:-4}
tenx_games=${2:-2}
balance_games=${3:-8}
seed=${SEED:-1}
cargo build --release --locked -p cli --features onnx >&2
bin=target/release/iron-arena
level=$(sed -n "s/^pub const DEFAULT_LEVEL: u8 = \([0-9]*\);/\1/p" crates/ai/src/level.rs)
leaf=models/$(sed -n 's/^pub const LEAF_V1_FILE: &str = "\(.*\)";/\1/p' src/net.rs)
shipped="level:$level"
bench=$($bin bench-ai)
echo "$bench"
leaf_bench=$($bin bench-leaf "$leaf")
echo "$leaf_bench"
# The level as it ships.
ms=$(sed -n 's/^level [0-9]* as shipped .*: \([0-9.]*\) ms per move.*/\1/p' <<<"$leaf_bench")
eps() { awk -v k="$1" '$1 == k && $3 == "15000:" { print $4 }' <<<"$bench"; }
h=$(eps heuristic)
u=$(eps uniform)
hb=$(awk -v ms="$ms" -v e="$h" 'BEGIN { printf "%d", 10 * ms / 1000 * e }')
ub=$(awk -v ms="$ms" -v e="$u" 'BEGIN { printf "%d", 10 * ms / 1000 * e }')
echo "$shipped spends ${ms} ms per move here; 10x that is $hb heuristic or $ub uniform evaluations"
# heuristic:15000: MCTS over the heuristic at level 4's budget, the previous default (the gate).
for opp in heuristic:15000 alphabeta:2 alphabeta:3; do
    $bin arena "$shipped" "$opp" --games "$gate_games" --matchups all --seed "$seed"
done
for opp in "heuristic:$hb" "uniform:$ub"; do
    $bin arena "$shipped" "$opp" --games "$tenx_games" --matchups all --seed "$seed"
done
$bin arena "$shipped" random --games 1 --matchups all --seed "$seed"
$bin balance --engine "$shipped" --games "$balance_games" --seed "$seed"
