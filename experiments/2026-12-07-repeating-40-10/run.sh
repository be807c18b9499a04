#!/usr/bin/env bash
# The default against lc0's own legacy on a repeating clock, 40 moves in 10 s (40/10: the clock gains 10 s after
# each 40 moves), pre-registered SPRT (bounds fixed before the first game): normalized Elo, pentanomial, elo0=0
# elo1=5, alpha=beta=0.05, stopped by the runner at its first crossing. Virtual clock (VirtualNps 1400, Threads=1),
# so the games replay exactly and the machine's load does not change them. Resumable: run it again to continue from results.jsonl (gunzip results.jsonl.gz and games.pgn.gz
# first if only the compressed copies are here).
# usage: KAIROS=/path/to/kairos run.sh
set -euo pipefail
cd "$(dirname "$0")"
resume=()
[ -f results.jsonl ] && resume=(--resume)
"${KAIROS:-kairos}" match \
  --engine name=default cmd=kairos \
  --engine name=legacy-lc0 cmd=kairos 'option.TimeManager=legacy(preset=lc0)' \
  --each tc=40/10 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games 40000 --concurrency 1 \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 \
  --results results.jsonl --pgn games.pgn "${resume[@]}" >> match.log 2>&1
