#!/usr/bin/env bash
# Two network Worker modules against each other in workerd (issue 10, lever 1), for a
# machine whose load varies: both run at once (two `wrangler dev`), and the rounds
# alternate A, B and native tract, so each round's samples share the same load. Prints,
# per module, the median evaluations/s of N runs of the net per request, each run
# building its own tract state ("per-call") or one kept session ("session"), and the
# median of native tract (`iron-arena bench-net`) over the same rounds.
#   scripts/bench-net-ab.sh DIR_A DIR_B [ROUNDS] [N]   (modules built, e.g. build/ and a copy of another build/)
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
a=$1 b=$2 rounds=${3:-7} N=${4:-200}
model=models/$(sed -n 's/^pub const MODEL_FILE: &str = "\(.*\)";/\1/p' src/net.rs)
pids=()
trap 'for p in "${pids[@]}"; do kill -- -$p 2>/dev/null; done' EXIT
# Starts a `wrangler dev` on module $1 and sets $port (not in a subshell: the trap must
# see every process group it started).
start() {
    local state
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    state=$(mktemp -d)
    setsid wrangler dev "$1/worker/shim.mjs" --ip 127.0.0.1 --port "$port" --persist-to "$state" \
        --inspector-port 0 --log-level warn --show-interactive-dev-session=false \
        --var AI_ENGINE:network --var AI_BENCH:on >"$state/log" 2>&1 &
    pids+=($!)
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/api/health" >/dev/null && break; sleep 0.2; done
}
bench() { curl -s -o /dev/null -w '%{time_total}' -X POST -H 'Content-Type: application/json' \
    -d "{\"evaluations\": $2, \"session\": $3}" "http://127.0.0.1:$1/api/ai/bench"; }
start "$a"; pa=$port
start "$b"; pb=$port
for p in $pa $pb; do bench $p 0 false >/dev/null; bench $p $N false >/dev/null; bench $p $N true >/dev/null; done
out=$(mktemp)
for r in $(seq "$rounds"); do
    for m in a b; do
        p=$([ $m = a ] && echo $pa || echo $pb)
        e=$(bench $p 0 false); c=$(bench $p $N false); s=$(bench $p $N true)
        python3 -c "print('$m per-call', $N/($c-$e)); print('$m session', $N/($s-$e))" >>"$out"
    done
    target/release/iron-arena bench-net "$model" |
        sed -n 's/.*; \([0-9.]*\) evaluations\/s.*kept session \([0-9.]*\) evaluations\/s.*/native per-call \1\nnative session \2/p' >>"$out"
done
python3 - "$out" "$a" "$b" "$rounds" "$N" <<'PY'
import sys, statistics, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    *k, v = line.split(); d[" ".join(k)].append(float(v))
names = {"a": sys.argv[2], "b": sys.argv[3], "native": "native tract"}
nat = statistics.median(d["native per-call"])
print(f"{sys.argv[4]} rounds of {sys.argv[5]} evaluations; medians (min-max), evaluations/s:")
for k, v in d.items():
    m, mode = k.split()
    print(f"  {names[m]:<28} {mode:<9} {statistics.median(v):>6.0f} ({min(v):.0f}-{max(v):.0f})  {statistics.median(v)/nat:.2f}x native per-call")
PY
