#!/usr/bin/env bash
# Self-play in resumable chunks (issue 10, lever 3): chunk k is
#   iron-arena selfplay --games GAMES --seed SEED*1000+k [selfplay options...]
# written to OUT/chunk-KKK.jsonl through a temporary file, so an interrupted run loses at
# most the chunk in progress, and rerunning the same command skips the chunks written.
# GAMES a multiple of 9 gives every match-up the same number of games.
#   training/selfplay-chunks.sh OUT CHUNKS GAMES SEED [selfplay options...]
# e.g. training/selfplay-chunks.sh data/gen1 12 108 41 --engine net:models/net-v3.onnx:256 \
#          --fast-engine net:models/net-v3.onnx:64 --full-prob 0.25
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 OUT CHUNKS GAMES SEED [selfplay options...]" >&2; exit 2; }
out=$1 chunks=$2 games=$3 seed=$4
shift 4
bin=${IRON_ARENA:-target/release/iron-arena}
mkdir -p "$out"
for k in $(seq 0 $((chunks - 1))); do
    f=$(printf '%s/chunk-%03d.jsonl' "$out" "$k")
    [ -s "$f" ] && continue
    rm -f "$f.tmp"
    t0=$(date +%s)
    "$bin" selfplay --games "$games" --seed $((seed * 1000 + k)) --out "$f.tmp" "$@" >/dev/null
    mv "$f.tmp" "$f"
    echo "chunk $k: $(wc -l <"$f") positions in $(($(date +%s) - t0)) s"
done
