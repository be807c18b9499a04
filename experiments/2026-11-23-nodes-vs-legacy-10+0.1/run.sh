#!/usr/bin/env bash
# SPRT of smooth(limit=nodes) against legacy at 10+0.1 on the virtual clock (EXPERIMENTS.md, #10).
# Resumable: run it again and it continues from results.jsonl.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=nodes cmd=kairos 'option.TimeManager=smooth(limit=nodes,init-nps=1400,mle-legacy(midpoint=72.0))' \
           option.TmTraceFile=nodes-trace.jsonl \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games 20000 --concurrency 2 \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
