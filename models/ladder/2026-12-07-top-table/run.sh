#!/usr/bin/env bash
# The games of README.md, resumable per file: run.sh probe
set -euo pipefail
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-07-top-table
B=target/release/iron-arena
case "${1:-}" in
probe) $B ladder hleaf:models/leaf-v3.bin:6+tt=20 hleaf:models/leaf-v3.bin:6 --games 72 --seed 4730 --out $D/probe.jsonl --moves | tee $D/probe.txt ;;
*) echo "usage: run.sh probe" >&2; exit 2 ;;
esac
