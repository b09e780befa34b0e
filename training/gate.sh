#!/usr/bin/env bash
# The gating match (issue 4): a new network must beat the current best network at an
# equal search budget (score >= 55%, AlphaZero's threshold) before it replaces it as the
# network the Worker serves (levels 1-2's MCTS); the second gate reports whether it also
# beats the heuristic evaluator at an equal CPU time (budgets converted with speeds
# measured in this same run).
#   training/gate.sh NEW.onnx [--games G] [--evals N] [--promote]
# --promote (on passing the first gate): NEW is copied into models/, becomes the Worker's
# network (src/net.rs: MODEL_FILE and MODEL_SHA256) and the manifest's `worker_network`
# entry (added if new, with its sha256 and size), so scripts/build-worker.sh's check
# passes. The levels it plays then need their ladder measured again (scripts/ladder.sh,
# models/README.md).
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
    name=$(basename "$new")
    [ "$new" -ef "models/$name" ] || cp "$new" "models/$name"
    sha=$(sha256sum "models/$name" | cut -d' ' -f1)
    sed -i "s|^pub const MODEL_FILE: &str = \".*\";|pub const MODEL_FILE: \&str = \"$name\";|; s|^pub const MODEL_SHA256: &str = \".*\";|pub const MODEL_SHA256: \&str = \"$sha\";|" src/net.rs
    python3 - "$name" "$sha" "$(stat -c %s "models/$name")" "$s1" "$s2" <<'PY'
import json, sys
name, sha, size, s1, s2 = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
m = json.load(open("models/manifest.json"))
if not any(e["file"] == name for e in m["models"]):
    m["models"].append({"file": name})
for e in m["models"]:
    if e["file"] == name:
        e.update(sha256=sha, bytes=size, worker_network=True,
                 gating_result={"vs_best_score": s1, "vs_heuristic_equal_cpu_score": s2})
    elif "worker_network" in e:
        e["worker_network"] = False
open("models/manifest.json", "w").write(json.dumps(m, indent=2, ensure_ascii=False) + "\n")
PY
    echo "promoted: the Worker serves models/$name (src/net.rs, models/manifest.json); measure its levels' ladder again"
fi
[ "$pass1" = 1 ]
