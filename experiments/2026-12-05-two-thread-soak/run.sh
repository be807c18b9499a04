#!/usr/bin/env bash
# 2026-12-05: the search's threads in real games after 2c980be–0803d2c (2026-12-04/05) changed the gather (a collision's visits at
# once, the examination of new leaves outside the tree lock, the gather's two buffers). 200 games at 1+0.01 on the
# wall clock, the default against legacy, both with Threads=2 (two search threads sharing one tree and its lock,
# every move's tree reused for the next), one game at a time; resumes where it stopped (kairos match --resume).
# usage: KAIROS=/path/to/kairos experiments/2026-12-05-two-thread-soak/run.sh   (then gzip -n games.jsonl)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kairos=$(realpath "${KAIROS:-$root/target/release/kairos}")
results="$here/games.jsonl"
if [ ! -e "$results" ] && [ -e "$results.gz" ]; then gunzip -k "$results.gz"; fi
resume=()
if [ -s "$results" ]; then resume=(--resume); fi
"$kairos" match \
  --engine name=default cmd="$kairos" \
  --engine name=legacy cmd="$kairos" arg=--time-manager=legacy \
  --each tc=${TC:-1+0.01} option.Threads=2 "option.WeightsFile=$root/weights/maia-1900.pb.gz" \
  --games "${GAMES:-200}" --openings "$root/../shared/books/8mvs_+90_+99.epd" \
  --results "$results" "${resume[@]}" >> "$here/match.txt" 2>&1
