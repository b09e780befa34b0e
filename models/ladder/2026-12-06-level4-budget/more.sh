#!/bin/bash
# The two screens the README added at 09:56: level 4 with no margin, and at 150,000 positions,
# against alphabeta:4 on the fixed level 4's openings (seed 4635), with their moves.
set -e
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-06-level4-budget
B=${B:-target/release/iron-arena}
grep -q '"8d31f12b37559f54"' crates/ai/tests/signature.rs || { echo "the search fix is not built (signature 8d31f12b37559f54)" >&2; exit 1; }
$B ladder hleaf:models/leaf-v1.bin:4+margin=0 alphabeta:4 --games 72 --seed 4635 --out $D/margin-0.jsonl --moves > $D/margin-0.txt 2>&1
$B ladder hleaf:models/leaf-v1.bin:4+nodes=150000 alphabeta:4 --games 72 --seed 4635 --out $D/nodes-150000.jsonl --moves > $D/nodes-150000.txt 2>&1
echo DONE
