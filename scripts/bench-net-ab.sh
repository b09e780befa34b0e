#!/usr/bin/env bash
# Network evaluations per second in workerd against native tract, for a machine whose
# load varies: the rounds alternate every contestant and native tract, so each round's
# samples share the same load. Per contestant: the median evaluations/s of N runs of the
# net per request, each run building its own tract state ("per-call") or one kept session
# ("session"), with native tract (`iron-arena bench-net`) on the same network.
#
# Two modules (issue 10, lever 1: build settings), each with its embedded network:
#   scripts/bench-net-ab.sh DIR_A DIR_B [ROUNDS] [N]   (modules built with --test-hooks, the benchmark route is only in them: e.g. build/test-hooks/ and a copy of another)
# Several networks in one module (issue 10, lever 2: sizes): the module (build/test-hooks/) fetches
# each ONNX from a local file server (`AI_BENCH_MODELS`), so no module is built per network:
#   scripts/bench-net-ab.sh --models ROUNDS N A.onnx B.onnx ...
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
pids=()
trap 'for p in "${pids[@]}"; do kill -- -$p 2>/dev/null; done' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# Starts a `wrangler dev` on module $1 (extra wrangler args after it) and sets $port (not in
# a subshell: the trap must see every process group it started).
start() {
    local dir=$1 state
    shift
    port=$(free_port)
    state=$(mktemp -d)
    setsid wrangler dev "$dir/worker/shim.mjs" --ip 127.0.0.1 --port "$port" --persist-to "$state" \
        --inspector-port 0 --log-level warn --show-interactive-dev-session=false \
        --var AI_BENCH:on "$@" >"$state/log" 2>&1 &
    pids+=($!)
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/api/health" >/dev/null && break; sleep 0.2; done
}
# bench PORT EVALS SESSION [MODEL]: the request's seconds (fails on a non-200 answer).
bench() {
    local model=${4:+, \"model\": \"$4\"} out
    out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -X POST -H 'Content-Type: application/json' \
        -d "{\"evaluations\": $2, \"session\": $3$model}" "http://127.0.0.1:$1/api/ai/bench")
    [ "${out%% *}" = 200 ] || { echo "bench: answer ${out%% *} for model '${4:-embedded}'" >&2; return 1; }
    echo "${out#* }"
}
native() {  # native NAME MODEL: appends native per-call / session lines for NAME
    target/release/iron-arena bench-net "$2" |
        sed -n "s/.*; \([0-9.]*\) evaluations\/s.*kept session \([0-9.]*\) evaluations\/s.*/$1 native-per-call \1\n$1 native-session \2/p" >>"$out"
}
out=$(mktemp)
names=()
several=false
if [ "${1:-}" = --models ]; then
    several=true
    rounds=$2 N=$3
    shift 3
    served=$(mktemp -d)
    for m in "$@"; do ln -s "$(realpath "$m")" "$served/$(basename "$m")"; names+=("$(basename "$m")"); done
    fport=$(free_port)
    setsid python3 -m http.server "$fport" --bind 127.0.0.1 --directory "$served" >/dev/null 2>&1 &
    pids+=($!)
    start build/test-hooks --var "AI_BENCH_MODELS:http://127.0.0.1:$fport"
    ports=()
    for _ in "${names[@]}"; do ports+=("$port"); done
    models=("${names[@]}")
    paths=("$@")
else
    a=$1 b=$2 rounds=${3:-7} N=${4:-200}
    model=models/$(sed -n 's/^pub const MODEL_FILE: &str = "\(.*\)";/\1/p' src/net.rs)
    start "$a"; ports=("$port")
    start "$b"; ports+=("$port")
    names=("$a" "$b")
    models=("" "")
    paths=("$model" "$model")
fi
# Warm-up: loads each network (and, for the fetched ones, the plan) before timing.
for i in "${!names[@]}"; do
    for arg in "0 false" "$N false" "$N true"; do bench "${ports[$i]}" $arg "${models[$i]}" >/dev/null; done
done
for r in $(seq "$rounds"); do
    for i in "${!names[@]}"; do
        p=${ports[$i]} m=${models[$i]}
        e=$(bench "$p" 0 false "$m"); c=$(bench "$p" "$N" false "$m"); s=$(bench "$p" "$N" true "$m")
        python3 -c "print('$i workerd-per-call', $N/($c-$e)); print('$i workerd-session', $N/($s-$e))" >>"$out"
        # Native per contestant only when their networks differ (else once per round).
        if $several || [ "$i" = 0 ]; then native "$i" "${paths[$i]}"; fi
    done
done
python3 - "$out" "$rounds" "$N" "${names[@]}" <<'PY'
import sys, statistics, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    i, mode, v = line.split(); d[(int(i), mode)].append(float(v))
names = sys.argv[4:]
print(f"{sys.argv[2]} rounds of {sys.argv[3]} evaluations; medians (min-max), evaluations/s:")
for i, name in enumerate(names):
    nat = d.get((i, "native-per-call")) or d[(0, "native-per-call")]
    nat_m = statistics.median(nat)
    for mode in ("workerd-per-call", "workerd-session", "native-per-call", "native-session"):
        v = d.get((i, mode))
        if v:
            print(f"  {name:<28} {mode:<17} {statistics.median(v):>6.0f} ({min(v):.0f}-{max(v):.0f})"
                  f"  {statistics.median(v) / nat_m:.2f}x native per-call")
PY
