#!/usr/bin/env bash
# prune-floor=1.0 with forced moves searched to their node target (search-forced=true) and a larger clock share for
# one move (max-move-budget=0.5), the moves-left curve's midpoint at 64.0: even trees and the clock spent (EXPERIMENTS.md,
# #10). Resumable: gunzip results.jsonl.gz, run it again and it continues from results.jsonl; GAMES=N stops after N games.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=nodes cmd=kairos \
           'option.TimeManager=smooth(limit=nodes,init-nps=1400,init-timeuse=0.9,init-tree-reuse=0.35,tree-reuse-update-rate=20.0,prune-floor=1.0,search-forced=true,max-move-budget=0.5,mle-legacy(midpoint=64.0,steepness=20.0))' \
           option.TmTraceFile=nodes-trace.jsonl \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-20000}" --concurrency 2 \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
