#!/usr/bin/env bash
# #12 item 6 for libtorch in channels-last (with the input built on the host, the tower's activations in place
# and bf16's RustBatchLimit 7): the build with it (NEW) against the build before it (OLD, 28deddb), both at
# their defaults (Precision=auto: bf16 on this AMX-BF16 Xeon, where the change acts) and Threads=1, 8mvs
# openings shuffled with seed 7, two games at a time (one core per engine):
#   nodes/  fixed 400 nodes a move: the same search with evaluations differing in rounding, should be even;
#   tc/     10+0.1 on the wall clock: the speed-up as Elo;
#   bullet/ 1+0.01 on the wall clock: time losses when two engines share the two cores at a bullet control.
# PART=nodes, tc or bullet runs one part (default nodes and tc). Resumable (gunzip results.jsonl.gz there first); GAMES sets
# the games of each part.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
new="$(realpath "${NEW:?set NEW to the build with libtorch in channels-last}")"
old="$(realpath "${OLD:?set OLD to the build before it (28deddb)}")"
book="$here/../../../shared/books/8mvs_+90_+99.epd"
for part in ${PART:-nodes tc}; do
  mkdir -p "$here/$part" && cd "$here/$part"
  resume=()
  [ -s results.jsonl ] && resume=(--resume)
  case "$part" in
    nodes) limit=tc=nodes=400 ;;
    tc) limit=tc=10+0.1 ;;
    bullet) limit=tc=1+0.01 ;;
    *) echo "unknown PART $part (nodes, tc or bullet)" >&2; exit 2 ;;
  esac
  "$new" match --engine name=new cmd="$new" --engine name=old cmd="$old" \
    --each "$limit" option.Threads=1 \
    --games "${GAMES:-40}" --concurrency 2 --openings "$book" --openings-order shuffled --seed 7 \
    --results results.jsonl --pgn games.pgn "${resume[@]}" | tail -n 6 | tee summary.txt
done
