#!/usr/bin/env bash
# Runs every test of the project, the cheapest first, stopping at the first failure. The
# README's test command; CI runs it on a clean clone (.ci/run). Installs what is missing
# (scripts/setup.sh). Prints how long each phase took at the end, passed or not.
#   scripts/test.sh           everything: the steps of `main` below, in order
#   scripts/test.sh --quick   the inner loop: rustfmt and the native suites, linted by clippy
#                             as they build (no setup, no wasm, no runtime, no browser)
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

main() {
    toolchain               # rustfmt, clippy and the wasm32 target (seconds; setup.sh's first lines)
    formatting              # rustfmt --check, in seconds
    if $quick; then
        native_suites_quick # a plain `cargo test` (the default members), linted
        echo "== quick tests passed"
        return
    fi
    start_setup             # the rest of scripts/setup.sh, in the background: mostly downloads
    native_suites           # one build of every native test binary (the lint); runs the native ones
    finish_setup            # waits for setup; the wasm-bindgen front end's own tests
    build_modules           # the deployed module, the test module (FAULT_* hooks), the browser engine
    deploy_dry_run          # the deployed module's bundle: size, startup, no test hook
    on_the_runtime          # side by side: the real-runtime suites, the browser tests, the network, the load smoke
    echo "== all tests passed"
}

# Why this order: each step needs the ones before it (the modules need setup's wasm-bindgen,
# the last step needs the modules, wrangler, Chromium and the venvs), and the cheap verdicts
# come first. The one overlap is setup's with the native build: setup mostly waits on the
# network (npm, PyPI, Debian; its one compile, wasm-bindgen, is ~58 CPU-s), so the native
# build uses the CPU it leaves idle. Nothing else overlaps a compile: two compiles side by
# side cost ~11% more CPU than one after the other (same hour, from scratch: 769 + 335 CPU-s
# in 582 s side by side, 689 + 303 CPU-s in 371 + 159 s one after the other). Until
# 2026-12 the module's build rode beside setup instead and was paused (SIGSTOP) during the
# native build; with the native build there, its verdict comes after ~max(setup, native)
# rather than setup + native (the README's rows: setup 124-166 s, native 146-156 s), and the
# module's build (~615 CPU-s, ~270 s) runs alone after it: the same CPU-bound work in
# about the same wall time.
# tract is compiled once, for wasm32 into the module: the model checks run the module's own
# tract in workerd (scripts/check-model.sh), so the native build has no tract (the CLI's
# `onnx` feature is not built here: ~175 CPU-s, a third of the native build).

quick=false
case "${1:-}" in
    --quick) quick=true ;;
    "") ;;
    *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

# The lint is no separate build: clippy as the compiler of the workspace's crates
# (RUSTC_WORKSPACE_WRAPPER, how `cargo clippy` runs it; CLIPPY_ARGS are its lint flags;
# dependencies are plain rustc), so the build of the test binaries is also the lint,
# warnings as errors, of every target `cargo clippy --all-targets` lints (libraries,
# binaries, tests, the example). A separate `cargo clippy` checked every dependency a
# second time: 100 CPU-s on a normal day, 250 on a slow one. Every cargo command below
# gets the same variables (clippy-driver makes CLIPPY_ARGS part of each crate's
# fingerprint), so none rebuilds what another built. The Worker is wasm32 only (natively
# its crate is empty): the module's build lints it (scripts/build-worker.sh).
lint=(env RUSTC_WORKSPACE_WRAPPER=clippy-driver CLIPPY_ARGS=-Dwarnings)
# One build of every test binary, the real-runtime suites' (package runtime-tests) included:
# built together they share each crate's build (one `ai`, one `service`). Not the default
# members for the native ones and another build for the suites: leaving a package out
# changes the features cargo unifies, and serde_json and others were compiled a second
# time (177 CPU-s with tract).
native=(--locked --workspace)

toolchain() {
    phase "toolchain: rustfmt, clippy, the wasm32 target"
    rustup component add clippy rustfmt >/dev/null
    $quick || rustup target add wasm32-unknown-unknown >/dev/null
}

formatting() {
    phase "rustfmt"
    cargo fmt --all --check
    cargo fmt --manifest-path crates/wasm-bindgen/Cargo.toml --check  # its own workspace
}

native_suites_quick() {
    phase "native suites, linted as they build: rules, browser engine, AI, service, CLI"
    # The workspace's default members: every native crate, not the real-runtime suites.
    "${lint[@]}" cargo test --locked
}

# scripts/setup.sh --tests in the background, its output in test-output/setup.log;
# finish_setup waits for it. A failure meanwhile does not cut it off (an install stopped
# half-way, apt's or npm's, can leave a broken tree): the report waits for it to end.
setup_pid=""
start_setup() {
    phase "setup started in the background (scripts/setup.sh --tests: venvs, npm, Chromium, wasm-bindgen)"
    mkdir -p test-output
    ( start=$SECONDS rc=0
      scripts/setup.sh --tests >test-output/setup.log 2>&1 || rc=$?
      echo "== setup took $((SECONDS - start))s (rc $rc)" >>test-output/setup.log
      exit $rc ) &
    setup_pid=$!
}

native_suites() {
    phase "native suites, linted as they build: rules, browser engine, AI, service, CLI (every test binary is built here)"
    "${lint[@]}" cargo test "${native[@]}" --no-run --message-format=json-render-diagnostics \
        >test-output/native-build.json
    # The binaries of this one build run here, but the real-runtime suites' (they need a
    # runtime: on_the_runtime), each as cargo test runs it: from its package's directory.
    # One binary after another, each running its tests on both cores: measured against
    # cargo-nextest on the same build (a process per test, two at a time), this loop took
    # 28.1 / 46.8 / 36.4 s (22.1 / 25.4 / 21.1 CPU-s) and `cargo nextest run` 40.2 / 55.9 /
    # 47.4 s (28.1 / 27.7 / 25.4 CPU-s), alternated on a loaded machine: the longest tests
    # (ai's hybrid ones, 8-13 s each) set the pace, and nextest added 313 processes.
    scripts/test-binaries.py test-output/native-build.json --except runtime-tests >test-output/native-tests.txt
    [ -s test-output/native-tests.txt ] || { echo "no native test binary was built" >&2; exit 1; }
    while read -r _ dir exe; do
        echo "-- ${exe#"$ROOT"/}"
        (cd "$dir" && CARGO_MANIFEST_DIR=$dir "$exe" -q)
    done <test-output/native-tests.txt
    "${lint[@]}" cargo test "${native[@]}" --doc
}

finish_setup() {
    phase "setup: the rest of it waited for; the wasm-bindgen front end's own tests"
    local pid=$setup_pid
    setup_pid=""
    if ! wait "$pid"; then
        cat test-output/setup.log
        echo "scripts/setup.sh failed (test-output/setup.log)" >&2
        exit 1
    fi
    tail -n 1 test-output/setup.log
    # In the target directory setup.sh installed it from (its dependencies built there
    # once, with the same profile).
    "${lint[@]}" CARGO_PROFILE_RELEASE_OPT_LEVEL=0 cargo test --release --locked -q \
        --manifest-path crates/wasm-bindgen/Cargo.toml --target-dir target/wasm-bindgen
}

build_modules() {
    phase "build the Workers modules (with the network AI: the deployed one, the tests' one; clippy lints the Worker as it compiles) and the browser engine"
    scripts/build-worker.sh
    # The real-runtime suites' module: the same with the tests' fault switches (feature
    # test-hooks); only the Worker crate and the fat LTO again, ~13 s. Built last, so that
    # runtime-tests.sh finds it up to date.
    scripts/build-worker.sh --test-hooks
}

deploy_dry_run() {
    phase "deploy dry run: the deployed module's bundle builds, fits the 64 MiB limit, starts in time and has no test hook (wrangler deploy --dry-run)"
    scripts/check-deploy.sh
}

# Three jobs at once, each mostly waiting on runtimes, browsers and sockets, so together
# they keep both cores busy where one after another each left one idle:
# - the real-runtime suites (tests/*.rs against `wrangler dev`, on the test module: API,
#   accounts, players, faults, schemathesis; logs in test-output/runtime/);
# - the browser end-to-end tests (headless Chromium, on the deployed module; screenshots in
#   test-output/);
# - the network: the module's tract (wasm32, in workerd: scripts/check-model.sh) runs the
#   shipped models as their trainer did; a reference moved by 1e-2 must fail the check;
#   then the training smoke, its model checked the same way;
# - the load benchmark's smoke (load_smoke), a fourth, short job (issue 30, item 4).
on_the_runtime() {
    phase "on the real runtime, side by side: the Rust suites, the browser, the network, the load smoke"
    side_job runtime-suites "${lint[@]}" RUNTIME_TESTS_CARGO_ARGS="${native[*]}" scripts/runtime-tests.sh
    side_job e2e scripts/e2e.sh
    side_job network network_checks
    side_job load-smoke load_smoke
    local failed=() job name
    for job in "${side_jobs[@]}"; do
        wait "${job##*:}" || failed+=("${job%%:*}")
    done
    for name in "${failed[@]}"; do
        echo "==== $name (test-output/$name.log)"
        cat "test-output/$name.log"
    done
    # A CI report keeps only the head and the tail of the output: what failed, again, last.
    for name in "${failed[@]}"; do digest "$name"; done
    [ ${#failed[@]} = 0 ] || exit 1
    tail -n 1 test-output/runtime-suites.log
    grep -E "^# (tests|pass|fail) " test-output/e2e.log | tr '\n' ' '
    echo
    grep -E "matches the reference|refuses a reference|smoke: OK" test-output/network.log
    grep -E "^PASS" test-output/load-smoke.log
}

# digest NAME: the failures of a side job's log, short: for the browser tests each failed
# test's TAP block (its name, error and the start of its stack), for the Rust suites each
# failed test's panic, for the others the log's last lines.
digest() {
    local log="test-output/$1.log"
    echo "==== what failed in $1 (the whole log above and in $log)"
    case $1 in
        e2e) awk '/^not ok /{on=1; n=0} on && n < 40 {print; n++} on && /^  \.\.\.$/ {on=0}' "$log" ;;
        runtime-suites) grep -h -A12 -E "^---- .* stdout ----$" test-output/runtime/*.log 2>/dev/null \
            | head -n 80 || true
            grep -E "^FAILED" "$log" || true ;;
        *) tail -n 25 "$log" ;;
    esac
}

# The load benchmark (scripts/load.sh) as a smoke: 20 games, 6 plies, a 20 s bound, on the
# deployed module build_modules made (LOAD_SKIP_BUILD) and with the debug build of
# tests/examples/load.rs that the native build made and linted (LOAD_BIN: no release build
# here). It asserts only correctness: every acknowledged move in its game's record once, no
# 5xx, D1 unchanged by the moves; its figures mean nothing. Alone on a loaded 2-core
# machine it took 22-46 s and 11-19 CPU-s, the runtime's start included (2026-12-03).
load_smoke() {
    local bin
    bin=$(python3 -c 'import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["kind"] == ["example"] and m["target"]["name"] == "load":
        print(m["executable"])' test-output/native-build.json)
    [ -n "$bin" ] || { echo "the native build made no load example (test-output/native-build.json)" >&2; exit 1; }
    LOAD_SKIP_BUILD=1 LOAD_BIN=$bin scripts/load.sh --smoke
}

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

# Phase timing: each `phase` closes the previous one; the table prints on exit, passed or not.
# Each row: wall seconds, then the CPU seconds (user + system) of the commands that ended
# in the phase (setup's, run in the background, land in the phase it ends in), which do
# not depend on what else the machine runs: on a quiet 2-core machine a phase takes about
# max(CPU / 2, what it spends waiting).
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
    close_phase "$([ $rc = 0 ] || echo ' (FAILED)')"
    if [ -n "$setup_pid" ]; then
        echo "== waiting for setup's installs to end (test-output/setup.log)"
        wait "$setup_pid" || true
    fi
    read_cpu
    rm -f "$cpu_file"
    echo "== time per phase (total ${SECONDS}s wall, $(printf '%.0f' "$cpu_now")s cpu)"
    printf '%s\n' "${timings[@]}"
    [ ! -f test-output/setup.log ] || $quick || grep -h "^== setup took" test-output/setup.log || true
}
trap report EXIT

main
