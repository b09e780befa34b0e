#!/usr/bin/env bash
# Runs Iron Arena locally on the embedded default: the real Workers runtime (workerd via
# `wrangler dev`) with a local Durable Object store and a local D1 SQLite file under
# .wrangler/state, serving the client from public/ and the API under /api.
# PORT=8787 by default. Installs what is missing first (scripts/setup.sh).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
scripts/setup.sh
scripts/build-worker.sh
# The D1 schema: migrations/ in order (those already applied are skipped).
CI=1 wrangler d1 migrations apply DB --local >/dev/null
echo "Iron Arena on http://127.0.0.1:${PORT:-8787}"
exec wrangler dev --ip 127.0.0.1 --port "${PORT:-8787}" --show-interactive-dev-session=false
