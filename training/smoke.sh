#!/usr/bin/env bash
# End-to-end smoke of the training stack (CI): self-play 2 games -> train 1 step ->
# export ONNX + reference -> check it with tract (CHECK_MODEL, or `iron-arena check-model`)
# if available.
#
#   training/smoke.sh            (from anywhere; uses <repo>/.tools/train-venv)
#   training/smoke.sh --venv-only  only installs the venv (scripts/setup.sh, in the background)
#
# Env: IRON_ARENA_BIN (default target/release/iron-arena, built if missing), CHECK_MODEL
#      (a command that checks an .onnx against its reference; default: the CLI's),
#      TRAIN_VENV (default .tools/train-venv), PYTHON (default python3, to create the venv).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

VENV="${TRAIN_VENV:-$ROOT/.tools/train-venv}"
REQ="$ROOT/training/requirements.txt"
BIN="${IRON_ARENA_BIN:-$ROOT/target/release/iron-arena}"

# --- the venv: create it, (re)install when requirements.txt changed
want="$(sha256sum "$REQ" | cut -d' ' -f1)"
have="$(cat "$VENV/.requirements.sha256" 2>/dev/null || true)"
if [[ ! -x "$VENV/bin/python" || "$want" != "$have" ]]; then
  echo "smoke: installing the training venv at $VENV from training/requirements.txt"
  [[ -x "$VENV/bin/python" ]] || "${PYTHON:-python3}" -m venv "$VENV"
  # --no-compile: pip's byte-compilation of the tree (sympy, scipy, jax, ...) was 35 of its
  # 62 CPU-s; Python compiles the few modules a run imports when it imports them.
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile -r "$REQ"
  echo "$want" > "$VENV/.requirements.sha256"
fi
[[ "${1:-}" == "--venv-only" ]] && exit 0

# --- the CLI
if [[ ! -x "$BIN" ]]; then
  echo "smoke: building the release CLI"
  cargo build --release -p cli --features onnx
fi

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
start=$SECONDS

"$BIN" selfplay --games 2 --engine heuristic:8 --out "$TMP/smoke.jsonl"
test -s "$TMP/smoke.jsonl"

# One training step: XLA's compile of the graph (the step, the metrics, the export's
# reference run) is nearly all of the work, not running it, so the smoke compiles without
# LLVM's optimisations (45 -> 24 CPU-s measured; the outputs are the same computation, and
# the check below holds tract to them). Real training runs keep XLA's default.
XLA_FLAGS="${XLA_FLAGS:-} --xla_backend_optimization_level=0" "$VENV/bin/python" "$ROOT/training/train.py" \
  --data "$TMP/smoke.jsonl" --out "$TMP/smoke.onnx" \
  --steps 1 --batch 16 --log-every 1 --checkpoint "$TMP/checkpoint.npz" --bin "$BIN"
test -s "$TMP/smoke.onnx"
test -s "$TMP/smoke.reference.json"

# --- tract check: CHECK_MODEL if set (a command given the .onnx, which must pass it against
# its .reference.json: CI gives scripts/check-model.sh, the Workers module's own tract in
# workerd), else the CLI's `check-model` when it has one (feature onnx)
# (A CLI without `onnx` answers check-model with "no network support"; the usage line
# lists the command either way.)
if [[ -n "${CHECK_MODEL:-}" ]]; then
  $CHECK_MODEL "$TMP/smoke.onnx"
  echo "smoke: tract check passed ($CHECK_MODEL)"
elif [[ "$("$BIN" check-model 2>&1 || true)" != *"no network support"* ]]; then
  "$BIN" check-model "$TMP/smoke.onnx" "$TMP/smoke.reference.json"
  echo "smoke: tract check passed"
else
  echo "smoke: tract check SKIPPED (no CHECK_MODEL, and this iron-arena was built without onnx)"
  if [[ -n "${REQUIRE_TRACT:-}" ]]; then echo "smoke: REQUIRE_TRACT is set: failing"; exit 1; fi
fi

echo "smoke: OK in $((SECONDS - start))s"
