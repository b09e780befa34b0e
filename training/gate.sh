#!/usr/bin/env bash
# The gating match (issue 4): a new network must beat the current best network at an
# equal search budget (score >= 55%, AlphaZero's threshold) before it replaces it as the
# network the --net Worker embeds; and it is only worth making the Worker's default AI if
# it also beats the heuristic evaluator at an equal CPU time (budgets converted with
# speeds measured in this same run).
#   training/gate.sh NEW.onnx [--games G] [--evals N] [--promote]
# --promote (on passing the first gate): NEW becomes the Worker's network (src/net.rs)
# and the manifest records it. Making the network the default AI (AI_ENGINE in
# wrangler.toml) stays a reviewed change, backed by the second gate's result.
set -euo pipefail
cd "$(dirname "$0")/.."
new=$1; shift
games=4; evals=64; promote=0
while [ $# -gt 0 ]; do
    case $1 in
        --games) games=$2; shift 2 ;;
        --evals) evals=$2; shift 2 ;;
        --promote) promote=1; shift ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
best=models/$(sed -n 's/^pub const MODEL_FILE: &str = "\(.*\)";/\1/p' src/net.rs)
cargo build --release --locked -p cli --features onnx >&2
bin=target/release/iron-arena
score() { sed -n 's/.*score \([0-9.]*\)%.*/\1/p' <<<"$1" | head -1; }

echo "== gate 1: $new vs the current best $best, $evals evaluations each"
r1=$($bin arena "net:$new:$evals" "net:$best:$evals" --games "$games" --matchups all)
echo "$r1"
s1=$(score "$r1")

echo "== gate 2: $new vs the heuristic evaluator at an equal CPU time"
net_eps=$($bin bench-net "$new" | sed -n 's/.*; \([0-9.]*\) evaluations\/s.*/\1/p')
heur_eps=$($bin bench-ai | awk '$1 == "heuristic" && $3 == "512:" { print $4 }')
heur=$(python3 -c "print(max(1, round($evals * $heur_eps / $net_eps)))")
echo "speeds here: network $net_eps/s, heuristic $heur_eps/s: $evals network evaluations cost as much as $heur heuristic ones"
r2=$($bin arena "net:$new:$evals" "heuristic:$heur" --games "$games" --matchups all)
echo "$r2"
s2=$(score "$r2")

pass1=$(python3 -c "print(int($s1 >= 55.0))")
pass2=$(python3 -c "print(int($s2 >= 50.0))")
echo "== result: gate 1 (>= 55% vs best) $( [ "$pass1" = 1 ] && echo PASSED || echo FAILED ) at $s1%;" \
     "gate 2 (>= 50% vs heuristic per CPU time) $( [ "$pass2" = 1 ] && echo PASSED || echo FAILED ) at $s2%"
if [ "$pass1" = 1 ] && [ "$promote" = 1 ]; then
    cp "$new" "models/$(basename "$new")"
    sed -i "s|^pub const MODEL_FILE: &str = \".*\";|pub const MODEL_FILE: \&str = \"$(basename "$new")\";|; s|include_bytes!(\"../models/[^\"]*\")|include_bytes!(\"../models/$(basename "$new")\")|" src/net.rs
    python3 - "$(basename "$new")" "$s1" "$s2" <<'PY'
import json, sys
name, s1, s2 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
m = json.load(open("models/manifest.json"))
for e in m["models"]:
    e["worker_network"] = e["file"] == name
    if e["file"] == name:
        e["gating_result"] = {"vs_best_score": s1, "vs_heuristic_equal_cpu_score": s2}
json.dump(m, open("models/manifest.json", "w"), indent=2)
PY
    echo "promoted: src/net.rs now embeds $(basename "$new")"
fi
[ "$pass1" = 1 ]
