#!/usr/bin/env bash
# Network evaluations per second (issue 4), a benchmark: the shipped-candidate model run by
# native tract, by tract in wasm (simd128) inside workerd (`wrangler dev` on the module
# of build/test-hooks/, which carries the network and the benchmark route), and by onnxruntime in Python (the reference), with the ratios; the cold load of
# the model in a fresh isolate; the shipped AI's in-request reply time per level; and the
# learned leaf score's time per node against the heuristic's, natively (`bench-leaf`) and in
# workerd, each measured alternately in this one run, with the default level's time per move.
#   scripts/bench-net.sh [MODEL.onnx]   (default: the model the Worker embeds)
# NET_DIR=<dir> benchmarks another module (default build/test-hooks/, the module with the benchmark route); SKIP_BUILD=1 uses
# the modules and the CLI as they are built.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
model=${1:-models/$(sed -n 's/^pub const MODEL_FILE: &str = "\(.*\)";/\1/p' src/net.rs)}
net=${NET_DIR:-build/test-hooks}
if [ -z "${SKIP_BUILD:-}" ]; then
    # The test module: the benchmark route is compiled only into it (feature test-hooks).
    scripts/build-worker.sh --test-hooks
    cargo build --release --locked -p cli --features onnx >&2
fi
N=300

echo "== native tract"
# Printed from a variable, not through `tee /dev/stderr`: with both streams sent to one
# file, tee's reopening of /dev/stderr wrote from the file's start, over earlier lines.
out=$(target/release/iron-arena bench-net "$model")
echo "$out"
native=$(sed -n 's/.*; \([0-9.]*\) evaluations\/s.*/\1/p' <<<"$out")

echo "== the learned leaf score, native (bench-leaf)"
leaf=models/$(sed -n 's/^pub const LEAF_V1_FILE: &str = "\(.*\)";/\1/p' src/net.rs)
out=$(target/release/iron-arena bench-leaf "$leaf")
echo "$out"
native_leaf=$(sed -n 's/^time per node, leaf network \/ heuristic: \([0-9.]*\).*/\1/p' <<<"$out")

echo "== onnxruntime (Python, one thread)"
ort=""
if [ -x .tools/train-venv/bin/python ]; then
    ort=$(.tools/train-venv/bin/python - "$model" <<'PY'
import sys, time, numpy as np, onnxruntime as ort
o = ort.SessionOptions(); o.intra_op_num_threads = 1; o.inter_op_num_threads = 1
s = ort.InferenceSession(sys.argv[1], o, providers=["CPUExecutionProvider"])
x = np.random.default_rng(1).random((1, 22, 9, 9), dtype=np.float32)
name = s.get_inputs()[0].name
for _ in range(20): s.run(None, {name: x})
t = time.perf_counter(); n = 300
for _ in range(n): s.run(None, {name: x})
print(f"{n / (time.perf_counter() - t):.0f}")
PY
)
    echo "$ort evaluations/s"
else
    echo "(no training venv: run training/smoke.sh once to create it)"
fi

echo "== tract in wasm inside workerd (wrangler dev, $net/)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
state=$(mktemp -d)
CI=1 wrangler d1 migrations apply DB --local --persist-to "$state" >/dev/null
# --config: wrangler otherwise looks for its configuration beside the entry, and a module
# outside the repository (NET_DIR) ran with no D1 and no ASSETS binding, so no network.
setsid wrangler dev "$net/worker/shim.mjs" --config "$ROOT/wrangler.toml" --ip 127.0.0.1 --port "$port" --persist-to "$state" \
    --inspector-port 0 --log-level warn --show-interactive-dev-session=false \
    --var AI_BENCH:on >"$state/log" 2>&1 &
pid=$!
trap 'kill -- -$pid 2>/dev/null; rm -rf "$state"' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/api/health" >/dev/null && break; sleep 0.2; done
# A refused request fails the benchmark (its time would be read as evaluations).
bench() { curl -sf -o /dev/null -w '%{time_total}' -X POST -H 'Content-Type: application/json' \
    -d "{\"evaluations\": $1, \"session\": ${2:-false}}" "http://127.0.0.1:$port/api/ai/bench" \
    || { echo "POST /api/ai/bench failed; the runtime's log:" >&2; cat "$state/log" >&2; exit 1; }; }
# Startup: compiling the module is what grows with tract (the global scope does nothing
# else; the model is not touched until a request needs it). Measured in V8 (Node 22, the
# engine workerd embeds).
for w in "$net/index_bg.wasm"; do
    [ -f "$w" ] && node -e '
        const b = require("fs").readFileSync(process.argv[1]);
        const t = process.hrtime.bigint(); new WebAssembly.Module(b);
        console.log(`${process.argv[1]}: ${b.length} bytes, compiled by V8 in ${Number(process.hrtime.bigint() - t) / 1e6} ms`);' "$w"
done
cold=$(bench 0)
empty=$(bench 0)
bench $N >/dev/null; bench $N >/dev/null   # let V8 tier the code up
times=$(for _ in 1 2 3; do bench $N; echo; done | sort -n)
mid=$(sed -n 2p <<<"$times")
wasm=$(python3 -c "print(f'{$N / ($mid - $empty):.0f}')")
echo "first request that needs the network (loads and optimises the model): $(python3 -c "print(f'{1000*$cold:.0f}')") ms; an empty request: $(python3 -c "print(f'{1000*$empty:.0f}')") ms"
echo "$N evaluations: median of 3 requests $(python3 -c "print(f'{1000*$mid:.0f}')") ms -> $wasm evaluations/s"
bench $N true >/dev/null
times=$(for _ in 1 2 3; do bench $N true; echo; done | sort -n)
smid=$(sed -n 2p <<<"$times")
echo "$N evaluations with one kept tract session: median of 3 requests $(python3 -c "print(f'{1000*$smid:.0f}')") ms -> $(python3 -c "print(f'{$N / ($smid - $empty):.0f}')") evaluations/s"

echo "== the learned leaf score in workerd: the default level's hybrid over the benchmark positions"
# Each request searches the 9 positions of bench-leaf with one leaf score: heuristic and
# leaf at the heuristic's node budget (the time per node), shipped at the level's leaf
# budget (the level as it plays, without the root network's one run), and mcts, MCTS over
# the heuristic at the level's budget (the gate's opponent). Alternated, five rounds after
# one to warm up, so the machine's noise falls on all four.
search() { curl -sf -w ' %{time_total}' -X POST -H 'Content-Type: application/json' \
    -d "{\"search\": \"$1\"}" "http://127.0.0.1:$port/api/ai/bench" \
    || { echo "POST /api/ai/bench (search $1) failed; the runtime's log:" >&2; cat "$state/log" >&2; exit 1; }; }
for kind in heuristic leaf shipped mcts; do search $kind >/dev/null; done
rows=$(for _ in 1 2 3 4 5; do for kind in heuristic leaf shipped mcts; do echo "$kind $(search $kind)"; done; done)
cost=$(sed -n 's/^pub const LEAF_NODE_COST: f32 = \(.*\);/\1/p' crates/ai/src/level.rs)
python3 - "$empty" "$native_leaf" "$cost" <<PY
import json, sys
empty, native = float(sys.argv[1]), float(sys.argv[2])
secs, nodes, moves = {}, {}, {}
for line in """$rows""".strip().splitlines():
    kind, rest = line.split(" ", 1)
    body, t = rest.rsplit(" ", 1)
    b = json.loads(body)
    secs[kind] = secs.get(kind, 0) + float(t) - empty
    nodes[kind] = nodes.get(kind, 0) + b["nodes"]
    moves[kind] = moves.get(kind, 0) + b["positions"]
for kind in secs:
    print(f"{kind:>9}: {1000 * secs[kind] / moves[kind]:7.1f} ms per move in workerd, {nodes[kind] / secs[kind] / 1000:6.0f} positions/ms")
ratio = (secs["leaf"] / nodes["leaf"]) / (secs["heuristic"] / nodes["heuristic"])
print(f"time per node, leaf network / heuristic: {ratio:.2f} in workerd, {native:.2f} natively (LEAF_NODE_COST {sys.argv[3]})")
print(f"the default level as it plays, leaf budget / heuristic budget: {secs['shipped'] / secs['heuristic']:.2f} of the time in workerd")
print(f"the default level as it plays / MCTS over the heuristic at the same level: {secs['shipped'] / secs['mcts']:.2f} of the time in workerd")
PY

echo "== every level as it plays in workerd: the shipped AI at its budget, each of the 9 positions alone"
# One request a position (`position`), so each move is timed on its own: the median time per
# move is the issue's measure of a level's budget (issue 32: level 4 at most 150 ms), and the
# mean is what the meter (`Level::cost_nodes`) follows. Each position's time is the faster
# of two requests (the machine's noise only ever adds).
for level in 1 2 3 4 5 6; do
    rows=$(for i in 0 1 2 3 4 5 6 7 8; do
        for _ in 1 2; do
            curl -sf -w ' %{time_total}' -X POST -H 'Content-Type: application/json' \
                -d "{\"search\": \"shipped\", \"level\": $level, \"position\": $i}" "http://127.0.0.1:$port/api/ai/bench" \
                || { echo "POST /api/ai/bench (level $level, position $i) failed; the runtime's log:" >&2; cat "$state/log" >&2; exit 1; }
            echo
        done
    done)
    python3 - "$level" "$empty" <<PY
import json, statistics, sys
level, empty = sys.argv[1], float(sys.argv[2])
rows = [l for l in """$rows""".strip().splitlines() if l.strip()]
ms, work = [], 0
for a, b in zip(rows[0::2], rows[1::2]):
    times = []
    for row in (a, b):
        body, t = row.rsplit(" ", 1)
        times.append(1000 * (float(t) - empty))
        nodes = json.loads(body)["nodes"]
    ms.append(min(times))
    work += nodes
print(f"level {level}: median {statistics.median(ms):.0f} ms per move in workerd, mean {statistics.mean(ms):.0f}, "
      f"slowest {max(ms):.0f} ({work // len(ms)} evaluations or positions per move)")
PY
done

# The shipped AI (AI_ENGINE "auto", as deployed), whose reply names each level's engine
# (ai::level::LEVELS: the network's MCTS at levels 1-2, level 2's with heuristic leaves below
# the network's, alpha-beta over the leaf score above).
echo "== the shipped AI in a game (reply to the opening, request wall time)"
for level in 1 2 3 4 5 6; do
    out=$(curl -s -w ' %{time_total}' -X POST -H 'Content-Type: application/json' \
        -d "{\"south\":\"clockwork\",\"north\":\"axiom\",\"mode\":\"ai\",\"seat\":\"north\",\"level\":$level}" \
        "http://127.0.0.1:$port/api/games")
    python3 - "$out" "$level" <<'PY'
import json, sys
body, t = sys.argv[1].rsplit(" ", 1)
b = json.loads(body)
want = "mcts-network-heuristic" if int(sys.argv[2]) <= 2 else "alphabeta-leaf"
assert b["ai"]["engine"] == want, (want, b["ai"])
assert b["ai_move"] in b["state"]["moves"], b
print(f"level {sys.argv[2]}: {b['ai']['engine']} played {b['ai_move']} in {1000*float(t):.0f} ms")
PY
done

echo "== ratios (evaluations/s)"
python3 - "$native" "$wasm" "${ort:-0}" <<'PY'
import sys
native, wasm, ort = map(float, sys.argv[1:])
print(f"native tract {native:.0f}, tract wasm in workerd {wasm:.0f}, onnxruntime {ort:.0f}" if ort else f"native tract {native:.0f}, tract wasm in workerd {wasm:.0f}")
print(f"wasm/native {wasm/native:.2f}" + (f", native/onnxruntime {native/ort:.2f}, wasm/onnxruntime {wasm/ort:.2f}" if ort else ""))
PY
