#!/usr/bin/env bash
# The deployable bundle, checked offline: `wrangler deploy --dry-run` builds exactly what
# `wrangler deploy` would upload (the Workers module from build/, the bindings of
# wrangler.toml) without uploading anything, and its compressed size must stay within the
# plan's limit: 3 MB gzip on Workers Free (WORKER_GZIP_LIMIT_KIB, in KiB; Paid allows 10 MB).
# The static assets (public/) must each stay within the 25 MiB per-file limit.
# Needs the module built (scripts/build-worker.sh). Part of scripts/test.sh.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
[ -f build/worker/shim.mjs ] || scripts/build-worker.sh
limit_kib=${WORKER_GZIP_LIMIT_KIB:-2929}   # 3 MB = 3,000,000 bytes = 2929 KiB
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! log=$(wrangler deploy --dry-run --outdir "$out" 2>&1); then
    echo "$log"
    echo "wrangler deploy --dry-run failed" >&2
    exit 1
fi
total=$(grep -o 'Total Upload: .*' <<<"$log" || true)
[ -n "$total" ] || { echo "$log"; echo "no 'Total Upload' line in wrangler's output" >&2; exit 1; }
# "Total Upload: 1779.43 KiB / gzip: 609.51 KiB" (MiB for larger bundles).
gzip_kib=$(sed -n 's/.*gzip: \([0-9.]*\) \(KiB\|MiB\).*/\1 \2/p' <<<"$total" | awk '{ print ($2 == "MiB") ? $1 * 1024 : $1 }')
echo "deploy dry run: $total (limit: $limit_kib KiB gzip)"
awk -v g="$gzip_kib" -v l="$limit_kib" 'BEGIN { exit !(g <= l) }' || {
    echo "the bundle is $gzip_kib KiB gzip, over the plan's $limit_kib KiB" >&2
    exit 1
}
big=$(find public -type f -size +25M)
[ -z "$big" ] || { echo "static assets over 25 MiB: $big" >&2; exit 1; }
