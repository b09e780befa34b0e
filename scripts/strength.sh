#!/usr/bin/env bash
# The AI strength report (issue 4), a benchmark rather than a test: the shipped AI at its
# default in-request level against (a) heuristic-evaluator MCTS with 10x its time,
# (b) uniform-prior MCTS with 10x its time, (c) a random mover, over all nine match-ups,
# then the balance table of the default level. "10x the time" is turned into evaluation
# budgets from speeds measured in the same run (bench-ai), so the result does not depend
# on how loaded the machine is while the games run.
#   scripts/strength.sh [GAMES_PER_MATCHUP (even, default 2)] [BALANCE_GAMES (default 4)]
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
games=${1:-2}
balance_games=${2:-4}
cargo build --release --locked -p cli --features onnx >&2
bin=target/release/iron-arena
level=$(sed -n "s/^pub const DEFAULT_LEVEL: u8 = \([0-9]*\);/\1/p" crates/ai/src/level.rs)
bench=$($bin bench-ai)
echo "$bench"
ms=$(awk -v l="$level" '$1 == "level" && $2 == l { for (i = 1; i <= NF; i++) if ($i == "ms") print $(i-1) }' <<<"$bench")
eps() { awk -v k="$1" '$1 == k && $3 == "15000:" { print $4 }' <<<"$bench"; }
h=$(eps heuristic)
u=$(eps uniform)
hb=$(awk -v ms="$ms" -v e="$h" 'BEGIN { printf "%d", 10 * ms / 1000 * e }')
ub=$(awk -v ms="$ms" -v e="$u" 'BEGIN { printf "%d", 10 * ms / 1000 * e }')
echo "level $level spends ${ms} ms per move here; 10x that is $hb heuristic or $ub uniform evaluations"
for opp in "heuristic:$hb" "uniform:$ub" random; do
    $bin arena "level:$level" "$opp" --games "$games" --matchups all
done
$bin balance --engine "level:$level" --games "$balance_games"
