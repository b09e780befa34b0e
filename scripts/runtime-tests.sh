#!/usr/bin/env bash
# The real-runtime suites (tests/*.rs against `wrangler dev`), several test binaries at a
# time: each binary shares one runtime among its tests, so most of a binary's time is
# waiting on that runtime and on the network, and running binaries side by side fills
# the time one spends waiting. Each binary's output is kept in test-output/runtime/<name>.log
# and printed when it fails. The suites run on the test module (build/test-hooks/: the
# deployed module plus the tests' fault switches), which this script builds first
# (scripts/build-worker.sh --test-hooks: quick when it is up to date).
#   scripts/runtime-tests.sh [filter]   (RUNTIME_TEST_JOBS=n binaries at once, default 3;
#                                       a filter is passed to every binary, as cargo test does)
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
jobs=${RUNTIME_TEST_JOBS:-3}
out=test-output/runtime
rm -rf "$out"
mkdir -p "$out"
# Without the lint variables test.sh passes to the cargo build below: the module's build
# sets its own, and cargo would otherwise see different flags for the browser engine.
env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS scripts/build-worker.sh --test-hooks >"$out/module-build.log" 2>&1 \
    || { cat "$out/module-build.log"; echo "building the test module failed" >&2; exit 1; }

# Build every test binary first; cargo lists them (one JSON message per artifact): the
# suites of tests/, package `runtime-tests` (tests/Cargo.toml).
# RUNTIME_TESTS_CARGO_ARGS: the cargo selection to build them with (default
# `-p runtime-tests`); test.sh passes the one its native build used (`--workspace`), so
# nothing is rebuilt with other features. Only that package's binaries run.
# shellcheck disable=SC2086 # the selection is words
cargo test ${RUNTIME_TESTS_CARGO_ARGS:---locked -p runtime-tests} --no-run \
    --message-format=json-render-diagnostics >"$out/build.json"
mapfile -t bins < <(scripts/test-binaries.py "$out/build.json" --only runtime-tests | awk '{print $1, $3}')
# Every tests/*.rs must be a [[test]] of tests/Cargo.toml (cargo does not find them itself
# there): a file left out would never run.
declare -A built=()
for b in "${bins[@]}"; do built[${b%% *}]=1; done
for file in tests/*.rs; do
    name=$(basename "$file" .rs)
    [ -n "${built[$name]:-}" ] || { echo "$file is not a [[test]] of tests/Cargo.toml: it would never run" >&2; exit 1; }
done

# The longest binaries first, so the short ones fill in around them.
order() {
    local first="reliability api abuse accounts players"
    for b in $first; do printf '%s\n' "${bins[@]}" | grep "^$b " || true; done
    printf '%s\n' "${bins[@]}" | grep -v -E "^($(echo $first | tr ' ' '|')) " || true
}

run_one() { # name executable: runs one binary (with the filter), logs it, prints a line
    local name=$1 exe=$2 start=$SECONDS
    if "$exe" $filter >"$out/$name.log" 2>&1; then
        echo "ok     $(printf '%4d' $((SECONDS - start)))s  $name"
    else
        echo "FAILED $(printf '%4d' $((SECONDS - start)))s  $name" | tee "$out/$name.failed"
    fi
}
filter=${1:-}
export -f run_one
export out filter

order | xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _

failed=$(ls "$out"/*.failed 2>/dev/null || true)
if [ -n "$failed" ]; then
    for f in $failed; do
        name=$(basename "$f" .failed)
        echo "==== $name (test-output/runtime/$name.log)"
        cat "$out/$name.log"
    done
    exit 1
fi
grep -h "^test result" "$out"/*.log | awk '{p += $4; f += $6} END {print "== real-runtime suites: " p " passed, " f " failed"}'
