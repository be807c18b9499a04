#!/usr/bin/env bash
# #34 item 1: time losses at 500 NPS and 1+0.01 with GatherWithinPlayoutsLeft=BOUND (off, small-moves, time-trouble
# or all), bare smooth(limit=nodes) against the default smooth(preset=kairos), both with that bound, on the
# virtual clock (Threads=1, the 8mvs book shuffled with seed 7, two games at a time), as the 100-game cells of
# ../2026-11-27-first-gather-cap. Results in 500-nps-BOUND/.
# BOUND=first was gather-bound-first.patch.txt on 81a0678 (not landed: it did not remove the losses).
# usage: KAIROS=/path/to/kairos BOUND=small-moves [GAMES=100] run.sh
set -euo pipefail
cd "$(dirname "$0")"
dir="500-nps-$BOUND"
mkdir -p "$dir" && cd "$dir"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$KAIROS" match \
  --engine name=bare cmd=kairos "option.TimeManager=smooth(limit=nodes)" \
  --engine name=kairos cmd=kairos "option.TimeManager=smooth(preset=kairos)" \
  --each tc=1+0.01 option.Threads=1 option.VirtualClock=true option.VirtualNps=500 \
    option.GatherWithinPlayoutsLeft="$BOUND" \
  --virtual-clock --games "${GAMES:-100}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
