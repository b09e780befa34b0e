#!/bin/bash
# The screen its README states: level 4's search at 105,000 positions against alphabeta:4 on the
# fixed level 4's openings (seed 4635). Resumable; refused without the search fix.
set -e
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-06-level4-budget
B=${B:-target/release/iron-arena}
grep -q '"8d31f12b37559f54"' crates/ai/tests/signature.rs || { echo "the search fix is not built (signature 8d31f12b37559f54)" >&2; exit 1; }
$B ladder hleaf:models/leaf-v1.bin:4+nodes=105000 alphabeta:4 --games 72 --seed 4635 --out $D/nodes-105000.jsonl > $D/nodes-105000.txt 2>&1
echo DONE
