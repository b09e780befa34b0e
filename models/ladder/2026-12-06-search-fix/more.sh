#!/bin/bash
# 72 more games of level 4 against alphabeta:4 with the fixed search (README: added at 08:35,
# for precision only). Resumable, like run.sh, and refused without the patch.
set -e
cd "$(dirname "$0")/../../.."
D=models/ladder/2026-12-06-search-fix
B=${B:-target/release/iron-arena}
grep -q '"8d31f12b37559f54"' crates/ai/tests/signature.rs || { echo "the search fix is not applied (signature 8d31f12b37559f54)" >&2; exit 1; }
$B ladder level:4 alphabeta:4 --games 72 --seed 4637 --out $D/level4-alphabeta4-more.jsonl > $D/level4-alphabeta4-more.txt 2>&1
echo MOREDONE
