#!/usr/bin/env bash
# #34's retune: any manager string (engine NAME) against legacy on the virtual clock, set up exactly as the
# default's SPRTs against legacy at 10+0.1 and 60+0.6 (VirtualNps 1400, Threads=1, the 8mvs book shuffled with
# seed 7, two games at a time), so that pair k plays the same opening as their pair k and trajectory.py's and
# paired.py's rows compare with theirs. SPRT elo0=0 elo1=10 (SPRT=off plays on without it, for a test read
# afterwards with sprt.py); GAMES=N stops after N games; NPS=N another VirtualNps (1400 unless set). Results in
# TC-NAME/ (or DIR/).
# Resumable with the same binary (gunzip its files first).
# usage: KAIROS=/path/to/kairos TC=60+0.6 NAME=bare MANAGER='smooth(limit=nodes)' [GAMES=400] run-vs-legacy.sh
set -euo pipefail
cd "$(dirname "$0")"
dir="${DIR:-$TC-$NAME}"
mkdir -p "$dir" && cd "$dir"
resume=()
[ -s results.jsonl ] && resume=(--resume)
sprt=(--sprt elo0=0 elo1=10 alpha=0.05 beta=0.05)
[ "${SPRT:-on}" = off ] && sprt=()
exec "$KAIROS" match \
  --engine name="$NAME" cmd=kairos "option.TimeManager=$MANAGER" \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc="$TC" option.Threads=1 option.VirtualClock=true option.VirtualNps=${NPS:-1400} \
  --virtual-clock --games "${GAMES:-400}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  "${sprt[@]}" \
  --results results.jsonl --pgn games.pgn "${resume[@]}" "$@"
