#!/usr/bin/env bash
# The shipped AI's ladder (issue 32; models/README.md "The ladder"): a round robin of the
# six levels as the Worker plays them (`level:N`: ai::shipped), the alpha-beta sparring
# partner at depths 1-4 and a random mover, 36 games a pair (both colours, the nine
# match-ups in turn), and the top-strength matches. Every player has a node or evaluation
# budget, so the results do not depend on the machine's speed. The round robin is split in
# two runs: the pairs without levels 5 and 6 (about 35 minutes on 2 cores) and the pairs
# with them (`--with`: level 6 thinks ~0.3 s a move natively; about an hour on 2 cores;
# scripts/ladder-device.sh runs them on a many-core machine). Each game is a JSON line in
# OUT as it ends; `iron-arena ladder-fit OUT/*.jsonl --anchor random --svg plot.svg`
# fits them all together.
#   cargo build --release --locked -p cli --features onnx
#   OUT=models/ladder/2026-12-04-shipped scripts/ladder.sh [lower|upper|top]...
set -eu
BIN=${BIN:-target/release/iron-arena}
OUT=${OUT:-models/ladder/shipped}
export IRON_ARENA_MODELS=${IRON_ARENA_MODELS:-models}
mkdir -p "$OUT"
lower="random alphabeta:1 alphabeta:2 alphabeta:3 alphabeta:4 level:1 level:2 level:3 level:4"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(lower upper top)
# The players include the network levels: the CLI with tract.
[ -x "$BIN" ] || cargo build --release --locked -p cli --features onnx
for part in "${parts[@]}"; do
    case $part in
    lower) "$BIN" ladder $lower --games 36 --seed 330 --anchor random \
        --out "$OUT/lower.jsonl" >"$OUT/lower.txt" ;;
    upper) "$BIN" ladder $lower level:5 level:6 --with level:5,level:6 --games 36 --seed 331 \
        --anchor random --out "$OUT/upper.jsonl" >"$OUT/upper.txt" ;;
    # 36 more games of the default level against alphabeta:4 (72 with the round robin's),
    # and the strongest level against alphabeta:5.
    top) "$BIN" ladder level:4 alphabeta:4 --games 36 --seed 326 \
            --out "$OUT/level4-alphabeta4.jsonl" >"$OUT/level4-alphabeta4.txt"
        "$BIN" ladder level:6 alphabeta:5 --games 36 --seed 327 \
            --out "$OUT/level6-alphabeta5.jsonl" >"$OUT/level6-alphabeta5.txt" ;;
    *) echo "unknown part '$part' (lower, upper, top)" >&2; exit 2 ;;
    esac
done
