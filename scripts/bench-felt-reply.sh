#!/usr/bin/env bash
# The felt AI reply in the browser against the API's own reply time, in one run (issue 34's
# benchmark; tests/e2e/bench-felt-reply.mjs says what it measures). Needs the deployed module
# built (scripts/build-worker.sh) and Chromium (scripts/e2e.sh installs it).
#   scripts/bench-felt-reply.sh [levels, default 1,2,4] [moves per level, default 8]
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
[ -f build/worker/shim.mjs ] || scripts/build-worker.sh
NODE_OPTIONS="${NODE_OPTIONS:-} --disable-warning=MODULE_TYPELESS_PACKAGE_JSON" \
  node tests/e2e/bench-felt-reply.mjs "$@"
