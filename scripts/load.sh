#!/usr/bin/env bash
# The load benchmark of many games at once (issue 30, item 4): starts `wrangler dev` on
# 127.0.0.1 with fresh state, the deployed module (build/) and raised limits, and runs
# tests/examples/load.rs against it: hundreds of concurrent link games with two clients
# each and a share of ai games, bounded in count and time; it prints validated moves/s,
# move latency, errors, an empty request's latency under the same load and the ratio, then
# checks that every acknowledged move is in its game's record once, that nothing answered
# 5xx and that D1 saw nothing of the non-final moves (PASS/FAIL, exit 1 on FAIL).
# Usage: scripts/load.sh [--smoke] [--games N] [--ai-percent P] [--plies N] [--seconds S]
#                        [--seed N] [--threads N] [--samplers N]
#   defaults: 200 games, 10% ai games (levels 1-2), 12 plies, 120 s, seed 1, 48 threads
#   --smoke   the CI smoke (scripts/test.sh): 20 games, 6 plies, a 20 s bound; asserts
#             only correctness (the same checks; its figures mean nothing)
# Environment:
#   LOAD_SKIP_BUILD=1  neither scripts/setup.sh nor scripts/build-worker.sh, when
#                      build/worker/shim.mjs exists (test.sh: it has just built it)
#   LOAD_BIN=path      run this build of the example (test.sh: the debug one its native
#                      build made and linted) instead of `cargo run --release`
#   LOAD_PORT=n        the runtime's port (default: a free one)
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
args=()
for arg in "$@"; do
    case "$arg" in
        --smoke) args+=(--games 20 --plies 6 --seconds 20) ;;
        *) args+=("$arg") ;;
    esac
done
if [ "${LOAD_SKIP_BUILD:-}" = 1 ] && [ -f build/worker/shim.mjs ]; then
    echo "LOAD_SKIP_BUILD=1: the module in build/ as it is"
else
    scripts/setup.sh >/dev/null
    scripts/build-worker.sh | tail -1
fi
state=$(mktemp -d)
port=${LOAD_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
# A migrated D1 (the tests' template copy: no wrangler process for it).
python3 tests/support/d1.py --fresh "$state"
# Every limit that counts per address or overall raised: the load comes from one address.
# AI_SEED: the ai games' replies derive from the game so far, so a seed replays a run.
setsid wrangler dev --ip 127.0.0.1 --port "$port" --persist-to "$state" --log-level warn \
    --var LIMIT_PER_IP_PER_MINUTE:1000000 --var LIMIT_PER_MINUTE:1000000 \
    --var LIMIT_OPEN_GAMES_PER_CREATOR:1000000 --var LIMIT_AI_MOVES_PER_IP_PER_MINUTE:1000000 \
    --var LIMIT_JOINS_PER_IP_PER_MINUTE:1000000 --var LIMIT_WS_PER_IP_PER_MINUTE:1000000 \
    --var LIMIT_WS_PER_IP:1000000 --var LIMIT_WS_PER_IP_PER_GAME:1000000 \
    --var LIMIT_GUESTS_PER_IP_PER_MINUTE:1000000 --var LIMIT_AI_COST_PER_IP_PER_MINUTE:1000000 \
    --var LIMIT_AI_SEARCHES_PER_IP:1000 --var LIMIT_OPEN_GAMES_PER_IP:1000000 \
    --var AI_SEED:load \
    --show-interactive-dev-session=false >"$state/wrangler.log" 2>&1 &
pid=$!
trap 'kill -TERM -- -$pid 2>/dev/null; rm -rf "$state"' EXIT
up=false
for _ in $(seq 1 120); do
    if curl -sf "http://127.0.0.1:$port/api/health" >/dev/null; then up=true; break; fi
    sleep 0.5
done
$up || { cat "$state/wrangler.log"; echo "wrangler dev did not answer on port $port" >&2; exit 1; }
run=(cargo run --quiet --locked --release -p runtime-tests --example load --)
[ -z "${LOAD_BIN:-}" ] || run=("$LOAD_BIN")
rc=0
"${run[@]}" "http://127.0.0.1:$port" --persist "$state" "${args[@]}" || rc=$?
# What the runtime logged beyond its banner (an exception or a 5xx shows here).
if [ $rc != 0 ] && [ -s "$state/wrangler.log" ]; then
    echo "== wrangler.log (its last 40 lines but the development key's notice)"
    grep -v -e "IP_HASH_KEY is not set" -e '^\s*$' "$state/wrangler.log" | tail -n 40
fi
exit $rc
