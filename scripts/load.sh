#!/usr/bin/env bash
# Load test on the local runtime: starts `wrangler dev` with fresh state and raised
# creation limits, runs tests/examples/load.rs against it, prints the wasm size and figures.
# Usage: scripts/load.sh [clients] [games-per-client] [plies]
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
scripts/setup.sh >/dev/null
scripts/build-worker.sh | tail -1
state=$(mktemp -d)
port=8791
CI=1 wrangler d1 migrations apply DB --local --persist-to "$state" >/dev/null
setsid wrangler dev --ip 127.0.0.1 --port $port --persist-to "$state" --log-level warn \
    --var LIMIT_PER_IP_PER_MINUTE:1000000 --var LIMIT_PER_MINUTE:1000000 \
    --var LIMIT_OPEN_GAMES_PER_CREATOR:1000000 --var LIMIT_AI_MOVES_PER_IP_PER_MINUTE:1000000 \
    --var LIMIT_JOINS_PER_IP_PER_MINUTE:1000000 --var LIMIT_WS_PER_IP_PER_MINUTE:1000000 \
    --var LIMIT_WS_PER_IP:1000000 --var LIMIT_WS_PER_IP_PER_GAME:1000000 \
    --show-interactive-dev-session=false >"$state/wrangler.log" 2>&1 &
pid=$!
trap 'kill -TERM -- -$pid 2>/dev/null; rm -rf "$state"' EXIT
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/api/health" >/dev/null && break; sleep 0.5; done
cargo run --quiet --release -p runtime-tests --example load -- "http://127.0.0.1:$port" "$@"
