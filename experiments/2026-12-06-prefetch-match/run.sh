#!/usr/bin/env bash
# 2026-12-06: is a CPU search without prefetching (MaxPrefetch=0) at least as strong as with lc0's 32? Both engines
# at the defaults but for the prefetch (Maia-1900, Threads=0: a search thread and a backend a core), 10+0.1 on the
# wall clock, one game at a time, 8mvs openings each played twice; resumes where it stopped (kairos match --resume).
# usage: KAIROS=/path/to/kairos experiments/2026-12-06-prefetch-match/run.sh   (then gzip -n games.jsonl)
# The continuation later that day with another build (a results file names its engines' builds, so --resume takes the
# same build only): RUN=seed80 SEED=80 writes games-seed80.jsonl and match-seed80.txt instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kairos=$(realpath "${KAIROS:-$root/target/release/kairos}")
suffix=${RUN:+-$RUN}
results="$here/games$suffix.jsonl"
if [ ! -e "$results" ] && [ -e "$results.gz" ]; then gunzip -k "$results.gz"; fi
resume=()
if [ -s "$results" ]; then resume=(--resume); fi
"$kairos" match \
  --engine name=prefetch-0 cmd="$kairos" option.MaxPrefetch=0 \
  --engine name=prefetch-32 cmd="$kairos" option.MaxPrefetch=32 \
  --each tc=${TC:-10+0.1} "option.WeightsFile=$root/weights/maia-1900.pb.gz" \
  --games "${GAMES:-400}" --openings "$root/../shared/books/8mvs_+90_+99.epd" \
  --openings-order shuffled --seed "${SEED:-79}" \
  --results "$results" "${resume[@]}" >> "$here/match$suffix.txt" 2>&1
