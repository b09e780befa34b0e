#!/usr/bin/env bash
# Runs every test of the project, the cheapest first, stopping at the first failure:
# formatting, the native suites (rules, browser engine, AI, service, CLI; clippy lints them
# as they build), the Workers module's build (with the network AI; the Worker's wasm32
# lint) and deploy dry run, then, side by side, the real-runtime suites (tests/*.rs against
# `wrangler dev`, schemathesis), the browser end-to-end tests and the network check and
# training smoke.
# Installs what is missing first (scripts/setup.sh). The README's test command; CI runs it
# on a clean clone (.ci/run). Prints how long each phase took at the end.
#   scripts/test.sh           everything
#   scripts/test.sh --quick   the inner loop: rustfmt and the native suites, linted by clippy
#                             as they build
#                             (no setup, no wasm, no runtime, no tract, no browser)
# tract is compiled once, for wasm32 into the module: the model checks run the module's own
# tract in workerd (scripts/check-model.sh), so the native build has no tract (the CLI's
# `onnx` feature is not built here: ~175 CPU-s, a third of the native build).
# The lint is no separate build: clippy-driver compiles the project's own crates (only
# those; dependencies are plain rustc) in the build of the test binaries, as `cargo clippy`
# runs it, with warnings as errors (`lint` below).
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
stop_module_build() {
    [ -z "$module_build" ] || { kill -- "-$module_build" 2>/dev/null; kill -CONT -- "-$module_build" 2>/dev/null; } || true
}
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
cargo fmt --manifest-path crates/wasm-bindgen/Cargo.toml --check  # its own workspace
# clippy as the compiler of the workspace's crates (RUSTC_WORKSPACE_WRAPPER, how `cargo
# clippy` runs it; CLIPPY_ARGS are its lint flags), so the build of the test binaries is
# also the lint, warnings as errors, of every target `cargo clippy --all-targets` lints
# (libraries, binaries, tests, the example; the CLI's network code with `onnx`). A separate
# `cargo clippy` checked every dependency, tract included, a second time: 100 CPU-s on a
# normal day, 250 on a slow one. Every cargo command of the phases below gets the same
# variables (clippy-driver makes CLIPPY_ARGS part of each crate's fingerprint), so none
# rebuilds what another built. The Worker is wasm32 only (natively its crate is empty): the
# module's build lints it (scripts/build-worker.sh).
lint=(env RUSTC_WORKSPACE_WRAPPER=clippy-driver CLIPPY_ARGS=-Dwarnings)
if $quick; then
    phase "native suites, linted as they build: rules, browser engine, AI, service, CLI"
    # The workspace's default members: every native crate, not the real-runtime suites.
    "${lint[@]}" cargo test --locked
    echo "== quick tests passed"
    exit 0
fi
phase "native suites, linted as they build: rules, browser engine, AI, service, CLI (every native test binary is built here)"
# The module's build is paused meanwhile (SIGSTOP to its process group; SIGCONT after):
# each build alone keeps both cores busy, and two compiles side by side cost ~11% more CPU
# than one after the other (same hour, from scratch: 769 + 335 CPU-s in 582 s side by side,
# 689 + 303 CPU-s in 371 + 159 s one after the other). It ran during setup, whose downloads
# leave CPU idle, and the cheaper native suites still come first.
kill -STOP -- "-$module_build" 2>/dev/null || true  # (done already: nothing to pause)
# One build of every native test binary, the real-runtime suites' included: built together
# they share each crate's build (one `ai`, one `service`).
native=(--locked --workspace)
"${lint[@]}" cargo test "${native[@]}" --no-run --message-format=json-render-diagnostics \
    >test-output/native-build.json
# The binaries of this one build run here (the real-runtime suites', package runtime-tests,
# need a runtime: they run below). Not a plain `cargo test` (the default members): leaving a
# package out changes the features cargo unifies, and serde_json and others were compiled
# a second time (177 CPU-s with tract).
# Each binary runs as cargo test runs it: from its package's directory.
scripts/test-binaries.py test-output/native-build.json --except runtime-tests >test-output/native-tests.txt
[ -s test-output/native-tests.txt ] || { echo "no native test binary was built" >&2; exit 1; }
while read -r _ dir exe; do
    echo "-- ${exe#"$ROOT"/}"
    (cd "$dir" && CARGO_MANIFEST_DIR=$dir "$exe" -q)
done <test-output/native-tests.txt
"${lint[@]}" cargo test "${native[@]}" --doc
# The wasm-bindgen front end's own tests, in the target directory setup.sh installed it
# from (its dependencies built there once, with the same profile).
"${lint[@]}" CARGO_PROFILE_RELEASE_OPT_LEVEL=0 cargo test --release --locked -q \
    --manifest-path crates/wasm-bindgen/Cargo.toml --target-dir target/wasm-bindgen
phase "build the Workers modules (with the network AI; the deployed one and the tests' one; clippy lints the Worker as it compiles) and the browser engine"
kill -CONT -- "-$module_build" 2>/dev/null || true
if ! wait "$module_build"; then
    cat test-output/module-build.log
    echo "the module's cargo build failed (test-output/module-build.log)" >&2
    exit 1
fi
module_build=""
scripts/build-worker.sh
# The real-runtime suites' module: the same with the tests' fault switches (feature
# test-hooks); only the Worker crate and the fat LTO again, ~13 s. Built last, so that
# runtime-tests.sh finds it up to date.
scripts/build-worker.sh --test-hooks
phase "deploy dry run: the deployed module's bundle builds, fits the plan and has no test hook (wrangler deploy --dry-run)"
scripts/check-deploy.sh
phase "on the real runtime, side by side: the Rust suites, the browser, the network"
# Three jobs at once, each mostly waiting on runtimes, browsers and sockets, so together
# they keep both cores busy where one after another each left one idle:
# - the real-runtime suites (tests/*.rs against `wrangler dev`: API, accounts, players,
#   schemathesis; logs in test-output/runtime/);
# - the browser end-to-end tests (headless Chromium, screenshots in test-output/);
# - the network: the module's tract (wasm32, in workerd: scripts/check-model.sh) runs the
#   shipped models as their trainer did; a reference moved by 1e-2 must fail the check;
#   then the training smoke, its model checked the same way.
network_checks() {
    scripts/check-model.sh models/net-v*.onnx
    local moved
    moved=$(mktemp -d)
    cp models/net-v1.onnx "$moved/"
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); r["value"][1][0] += 0.01; json.dump(r, open(sys.argv[2], "w"))' \
        models/net-v1.reference.json "$moved/net-v1.reference.json"
    if scripts/check-model.sh "$moved/net-v1.onnx" >"$moved/log" 2>&1; then
        echo "the model check passed a reference moved by 1e-2" >&2
        exit 1
    fi
    grep -q "differs from the reference" "$moved/log" || { cat "$moved/log"; exit 1; }
    echo "the model check refuses a reference moved by 1e-2"
    rm -rf "$moved"
    IRON_ARENA_BIN=target/debug/iron-arena CHECK_MODEL=scripts/check-model.sh REQUIRE_TRACT=1 training/smoke.sh
}
side_jobs=()
side_job() {  # side_job NAME COMMAND...: runs it in the background, output in test-output/NAME.log
    local name=$1
    shift
    ( start=$SECONDS
      if "$@" >"test-output/$name.log" 2>&1; then
          echo "ok     $(printf '%4d' $((SECONDS - start)))s  $name"
      else
          echo "FAILED $(printf '%4d' $((SECONDS - start)))s  $name (test-output/$name.log)"
          exit 1
      fi ) &
    side_jobs+=("$name:$!")
}
side_job runtime-suites "${lint[@]}" RUNTIME_TESTS_CARGO_ARGS="${native[*]}" scripts/runtime-tests.sh
side_job e2e scripts/e2e.sh
side_job network network_checks
failed=()
for job in "${side_jobs[@]}"; do
    wait "${job##*:}" || failed+=("${job%%:*}")
done
for name in "${failed[@]}"; do
    echo "==== $name (test-output/$name.log)"
    cat "test-output/$name.log"
done
[ ${#failed[@]} = 0 ] || exit 1
tail -n 1 test-output/runtime-suites.log
grep -E "^# (tests|pass|fail) " test-output/e2e.log | tr '\n' ' '
echo
grep -E "matches the reference|refuses a reference|smoke: OK" test-output/network.log
echo "== all tests passed"
