#!/usr/bin/env bash
# End-to-end tests of the browser client (public/) in headless Chromium, driven by
# playwright-core, against the real Workers runtime (`wrangler dev`'s dev environment,
# started by the tests with fresh state: tests/support/runtime-host.mjs). Needs the Worker
# built (scripts/build-worker.sh) and `npm ci` done (scripts/setup.sh). Screenshots land in test-output/. The browser is Debian's
# chromium-headless-shell (installed here if missing), or the one CHROMIUM names.
# E2E_CONCURRENCY test files at once (default 2): each file has its own runtimes and
# browser, and a file spends most of its time waiting on them.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
if [ -z "${CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium-headless-shell ]; then
  echo "== installing Debian's chromium-headless-shell"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium-headless-shell >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium-headless-shell >/dev/null; fi
fi
if [ ! -f build/worker/shim.mjs ]; then scripts/build-worker.sh; else scripts/build-web-engine.sh; fi
mkdir -p test-output
echo "== end-to-end tests ($("${CHROMIUM:-/usr/bin/chromium-headless-shell}" --version 2>/dev/null))"
NODE_OPTIONS="${NODE_OPTIONS:-} --disable-warning=MODULE_TYPELESS_PACKAGE_JSON" \
  node --test --test-concurrency="${E2E_CONCURRENCY:-2}" 'tests/e2e/*.test.mjs'
