#!/usr/bin/env bash
# #34 item 1: the default manager with the gather capped at the stoppers' playouts left and a poll of the stoppers
# before a reused tree's first gather (gather-cap-and-start-poll.patch.txt on e42a26f, binary NEW) against the same
# default without them (e42a26f, binary OLD), both smooth(preset=kairos), on the virtual clock at TC and VirtualNps
# NPS (Threads=1, the 8mvs book shuffled with seed 7, two games at a time). SPRT elo0=-10 elo1=5 (a
# non-regression test). Resumable: run again with the same binaries. Results in tc-TC-nps-NPS/.
# usage: NEW=/path/kairos-gather-cap OLD=/path/kairos-e42a26f TC=10+0.1 NPS=1400 [GAMES=N] run-match.sh
set -euo pipefail
cd "$(dirname "$0")"
dir="tc-$TC-nps-$NPS"
mkdir -p "$dir" && cd "$dir"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$NEW" match \
  --engine name=capped cmd="$NEW" virtualclock=yes \
  --engine name=uncapped cmd="$OLD" virtualclock=yes \
  --each tc="$TC" option.Threads=1 option.VirtualClock=true option.VirtualNps="$NPS" \
  --virtual-clock --games "${GAMES:-20000}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --sprt elo0=-10 elo1=5 alpha=0.05 beta=0.05 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
