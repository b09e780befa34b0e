#!/usr/bin/env bash
# The deployable bundle, checked offline: `wrangler deploy --dry-run` builds exactly what
# `wrangler deploy` would upload (the Workers module from build/, the bindings of
# wrangler.toml) without uploading anything. Its uncompressed size ("Total Upload") must stay
# within WORKER_SIZE_LIMIT_KIB (KiB, uncompressed): by default 65536, the 64 MiB that
# Cloudflare's limits page gives for every plan ("There is no compressed size limit. Only the
# uncompressed bundle size counts.": developers.cloudflare.com/workers/platform/limits/
# #worker-size; the compressed 3 MB Free / 10 MB Paid limits are gone, and wrangler's own
# size report compares the uncompressed size with 64 MiB since workers-sdk#14001). The gzip
# size is reported for the record only: no limit reads it.
# The module's startup: V8 (Node 22, the engine workerd embeds) compiles and instantiates
# the wasm, which the runtime does before the global scope runs; it must stay well within
# the 1 s startup limit (checked against STARTUP_LIMIT_MS, 1000).
# The static assets (public/) must each stay within the 25 MiB per-file limit.
# The tests' fault switches (`FAULT_D1`, `FAULT_PANIC`, `FAULT_REMATCH`, feature
# `test-hooks`) must not be in what would be uploaded: no `FAULT_` string in the bundle
# (the wasm and the bundled JavaScript), and wrangler.toml sets no `FAULT_` var.
# Needs the module built (scripts/build-worker.sh: the deployed one, build/). Part of
# scripts/test.sh.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
[ -f build/worker/shim.mjs ] || scripts/build-worker.sh
limit_kib=${WORKER_SIZE_LIMIT_KIB:-65536}
[ -z "${WORKER_GZIP_LIMIT_KIB:-}" ] ||
    echo "WORKER_GZIP_LIMIT_KIB is ignored: no plan limits the compressed size (WORKER_SIZE_LIMIT_KIB limits the uncompressed one)" >&2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! log=$(wrangler deploy --dry-run --outdir "$out" 2>&1); then
    echo "$log"
    echo "wrangler deploy --dry-run failed" >&2
    exit 1
fi
total=$(grep -o 'Total Upload: .*' <<<"$log" || true)
[ -n "$total" ] || { echo "$log"; echo "no 'Total Upload' line in wrangler's output" >&2; exit 1; }
# "Total Upload: 1779.43 KiB / gzip: 609.51 KiB" (MiB for larger bundles): in KiB.
kib() { sed -n "s/.*$1 \([0-9.]*\) \(KiB\|MiB\).*/\1 \2/p" <<<"$total" | awk '{ print ($2 == "MiB") ? $1 * 1024 : $1 }'; }
size_kib=$(kib 'Total Upload:')
gzip_kib=$(kib 'gzip:')
[ -n "$size_kib" ] && [ -n "$gzip_kib" ] || { echo "cannot read the sizes in: $total" >&2; exit 1; }
echo "deploy dry run: $total"
awk -v s="$size_kib" -v g="$gzip_kib" -v l="$limit_kib" 'BEGIN {
    printf "  uncompressed %.0f KiB of the %d KiB limit (%.1f%%): %s; gzip %.0f KiB (for the record: no limit)\n",
        s, l, 100 * s / l, (s <= l) ? "fits" : "OVER", g }'
awk -v s="$size_kib" -v l="$limit_kib" 'BEGIN { exit !(s <= l) }' ||
    { echo "the bundle is $size_kib KiB uncompressed, over the limit of $limit_kib KiB" >&2; exit 1; }

# No test hook in what would be uploaded. The check can fail: the test module (when built)
# must carry them.
hooks=$(grep -a -l 'FAULT_' -r "$out" || true)
[ -z "$hooks" ] || { echo "the bundle carries the tests' FAULT_ switches ($hooks): build/ is not the deployed module (scripts/build-worker.sh without --test-hooks)" >&2; exit 1; }
! grep -q 'env\.FAULT_' <<<"$log" || { echo "wrangler.toml sets a FAULT_ var" >&2; exit 1; }
if [ -f build/test-hooks/index_bg.wasm ] && ! grep -a -q 'FAULT_' build/test-hooks/index_bg.wasm; then
    echo "the test module (build/test-hooks/) has no FAULT_ string: this check would find nothing" >&2
    exit 1
fi
echo "test hooks: no FAULT_ string in the bundle ($(ls "$out" | grep -v -c -E '\.map$|README') files)"

startup_ms=$(node -e '
    const bytes = require("fs").readFileSync(process.argv[1]);
    const t0 = process.hrtime.bigint();
    const module = new WebAssembly.Module(bytes);
    // Instantiation with stand-in imports: the glue calls none before its start function.
    const imports = {};
    for (const i of WebAssembly.Module.imports(module)) {
        imports[i.module] ??= {};
        imports[i.module][i.name] = i.kind === "tag"
            ? new WebAssembly.Tag({ parameters: ["externref"] })
            : () => { throw new Error("not called at startup"); };
    }
    new WebAssembly.Instance(module, imports);
    console.log(Math.round(Number(process.hrtime.bigint() - t0) / 1e6));' build/index_bg.wasm)
echo "startup: V8 compiled and instantiated build/index_bg.wasm in $startup_ms ms (limit ${STARTUP_LIMIT_MS:-1000})"
[ "$startup_ms" -le "${STARTUP_LIMIT_MS:-1000}" ] || { echo "the module's startup is over the limit" >&2; exit 1; }

big=$(find public -type f -size +25M)
[ -z "$big" ] || { echo "static assets over 25 MiB: $big" >&2; exit 1; }
