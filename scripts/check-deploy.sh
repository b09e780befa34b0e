#!/usr/bin/env bash
# The deployable bundle, checked offline: `wrangler deploy --dry-run` builds exactly what
# `wrangler deploy` would upload (the Workers module from build/, the bindings of
# wrangler.toml) without uploading anything. Its compressed size must stay within the
# plan's limit, WORKER_GZIP_LIMIT_KIB (KiB of gzip): by default Workers Paid's 10 MB
# (10,000,000 bytes = 9765 KiB), because the module carries the network AI (tract);
# set 2929 for Workers Free's 3 MB. The size is reported against both.
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
limit_kib=${WORKER_GZIP_LIMIT_KIB:-9765}
free_kib=2929
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
[ -n "$gzip_kib" ] || { echo "cannot read the gzip size in: $total" >&2; exit 1; }
fits() { awk -v g="$gzip_kib" -v l="$1" 'BEGIN { exit !(g <= l) }'; }
echo "deploy dry run: $total"
echo "  Workers Paid (10 MB = 9765 KiB gzip): $(fits 9765 && echo fits || echo OVER);" \
    "Workers Free (3 MB = $free_kib KiB gzip): $(fits $free_kib && echo fits || echo OVER);" \
    "checked against $limit_kib KiB"
fits "$limit_kib" || { echo "the bundle is $gzip_kib KiB gzip, over the plan's $limit_kib KiB" >&2; exit 1; }

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
