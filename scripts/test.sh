#!/usr/bin/env bash
# Runs every test of the project, the cheapest first, stopping at the first failure:
# formatting, lints, the native suites (rules, browser engine, AI, service, CLI), the wasm32
# checks, the Workers module's build (with the network AI) and deploy dry run, the
# real-runtime suites (tests/*.rs against `wrangler dev`, schemathesis), the network check
# and training smoke (tract), then the browser end-to-end tests.
# Installs what is missing first (scripts/setup.sh). The README's test command; CI runs it
# on a clean clone (.ci/run). Prints how long each phase took at the end.
#   scripts/test.sh           everything
#   scripts/test.sh --quick   the inner loop: rustfmt, clippy and the native suites only
#                             (no setup, no wasm, no runtime, no tract, no browser)
# tract is compiled three times in a full run, each needed once: checked natively for
# clippy (which lints the network code of the AI, the CLI and the Worker), built for wasm32
# into the module, and built natively (debug) for the CLI's model checks.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
quick=false
case "${1:-}" in
    --quick) quick=true ;;
    "") ;;
    *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

# Phase timing: each `phase` closes the previous one; the table prints on exit, passed or not.
# Each row: wall seconds, then the CPU seconds (user + system) of the commands the phase
# waited for, which do not depend on what else the machine runs: on a quiet 2-core
# machine a phase takes about max(CPU / 2, what it spends waiting).
timings=()
phase_name=""
phase_start=$SECONDS
# `times` (a builtin, run in this shell, not in a subshell) gives the CPU time of the
# children waited for; cpu_now holds it in seconds after read_cpu.
cpu_file=$(mktemp)
read_cpu() {
    times >"$cpu_file"
    cpu_now=$(awk 'NR == 2 { gsub(/[ms]/, " "); print $1 * 60 + $2 + $3 * 60 + $4 }' "$cpu_file")
}
read_cpu
phase_cpu=$cpu_now
close_phase() {
    [ -n "$phase_name" ] || return 0
    read_cpu
    timings+=("$(printf '%5ds %6.0fs cpu  %s%s' $((SECONDS - phase_start)) \
        "$(awk -v a="$cpu_now" -v b="$phase_cpu" 'BEGIN { print a - b }')" "$phase_name" "$1")")
}
phase() {
    close_phase ""
    phase_name="$1"
    phase_start=$SECONDS
    read_cpu
    phase_cpu=$cpu_now
    echo "== $1"
}
report() {
    local rc=$?
    stop_module_build
    close_phase "$([ $rc = 0 ] || echo ' (FAILED)')"
    read_cpu
    rm -f "$cpu_file"
    echo "== time per phase (total ${SECONDS}s wall, $(printf '%.0f' "$cpu_now")s cpu)"
    printf '%s\n' "${timings[@]}"
}
trap report EXIT

module_build=""
stop_module_build() { [ -z "$module_build" ] || kill -- "-$module_build" 2>/dev/null || true; }
if ! $quick; then
    phase "setup (installs what is missing; the module's cargo build runs meanwhile)"
    # The Workers module's cargo build (tract for wasm32, the longest compile) needs only the
    # wasm32 target: started now, in its own process group, it uses the CPU that setup's
    # downloads and the serial stretches of the next phases leave idle. The build phase
    # waits for it; a failure before then stops it.
    rustup target add wasm32-unknown-unknown >/dev/null
    mkdir -p test-output
    setsid scripts/build-worker.sh --compile-only >test-output/module-build.log 2>&1 &
    module_build=$!
    scripts/setup.sh --tests
fi
phase "rustfmt"
cargo fmt --all --check
phase "clippy (warnings are errors)"
# The full run lints the network code too (the Worker's `net`, the CLI's and AI's `onnx`),
# natively: one check of tract for every crate. The quick run leaves tract out.
features=(--features iron-arena-worker/net,cli/onnx)
if $quick; then features=(); fi
cargo clippy --workspace --all-targets --locked "${features[@]}" -- -D warnings
phase "native suites: rules, browser engine, AI, service, CLI"
cargo test --locked --workspace --exclude iron-arena-worker
if $quick; then
    echo "== quick tests passed"
    exit 0
fi
phase "wasm32: the engine builds; the Worker's wasm32-only code passes clippy"
# Without `net`: its code is linted above, and checking tract again for wasm32 costs a
# minute; the module build below compiles it for wasm32.
cargo check -p engine --target wasm32-unknown-unknown --locked
cargo clippy --locked -p iron-arena-worker --target wasm32-unknown-unknown -- -D warnings
phase "build the Workers module (with the network AI) and the browser engine"
if ! wait "$module_build"; then
    cat test-output/module-build.log
    echo "the module's cargo build failed (test-output/module-build.log)" >&2
    exit 1
fi
module_build=""
scripts/build-worker.sh
phase "deploy dry run: the bundle builds and fits the plan (wrangler deploy --dry-run)"
scripts/check-deploy.sh
phase "real-runtime suites (wrangler dev: API, accounts, players, schemathesis)"
# The test binaries side by side (one shared runtime each; logs in test-output/runtime/).
scripts/runtime-tests.sh
phase "the network: tract runs the shipped models as their trainer did; training smoke"
# A debug build: tract compiles in a third of the release time, and four inferences and
# two 8-evaluation self-play games need no optimiser.
cargo build --locked -p cli --features onnx
for m in models/net-v*.onnx; do
    target/debug/iron-arena check-model "$m" "${m%.onnx}.reference.json"
done
IRON_ARENA_BIN=target/debug/iron-arena REQUIRE_TRACT=1 training/smoke.sh
phase "browser end-to-end tests (headless Chromium, screenshots in test-output/)"
scripts/e2e.sh
echo "== all tests passed"
