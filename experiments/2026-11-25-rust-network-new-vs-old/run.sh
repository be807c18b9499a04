#!/usr/bin/env bash
# #12 item 6: the build with the network in plain Rust (NEW) against the build before it (OLD, 171a49a), both
# Precision=fp32 (where every batch now takes the Rust network) and otherwise at their defaults, 8mvs openings
# shuffled with seed 7, two games at a time (one core per engine, Threads=1):
#   nodes/  fixed 400 nodes a move: the same search with numerically different evaluations, should be even;
#   tc/     10+0.1 on the wall clock: the speed-up (2.04x lc0 against 1.30x in BENCHMARKS.md) as Elo.
# Resumable (gunzip results.jsonl.gz there first); GAMES sets the games of each part.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
new="$(realpath "${NEW:?set NEW to the build with the Rust network}")"
old="$(realpath "${OLD:?set OLD to the build before it (171a49a)}")"
book="$here/../../../shared/books/8mvs_+90_+99.epd"
for part in nodes tc; do
  mkdir -p "$here/$part" && cd "$here/$part"
  resume=()
  [ -s results.jsonl ] && resume=(--resume)
  limit=$([ $part = nodes ] && echo tc=nodes=400 || echo tc=10+0.1)
  "$new" match --engine name=new cmd="$new" --engine name=old cmd="$old" \
    --each "$limit" option.Precision=fp32 option.Threads=1 \
    --games "${GAMES:-40}" --concurrency 2 --openings "$book" --openings-order shuffled --seed 7 \
    --results results.jsonl --pgn games.pgn "${resume[@]}" | tail -n 6 | tee summary.txt
done
