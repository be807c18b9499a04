#!/usr/bin/env bash
# As 2026-11-24-nodes-steep-vs-legacy-10+0.1 (B) with smart pruning held until the whole node target is reached
# (prune-floor=1.0) and the curve's midpoint at 72 full moves, so that fewer moves before move 68 meet the hard deadline
# (EXPERIMENTS.md, #10). Resumable: gunzip results.jsonl.gz, run it again and it continues; GAMES=N stops after N games.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=nodes cmd=kairos \
           'option.TimeManager=smooth(limit=nodes,init-nps=1400,init-timeuse=0.9,init-tree-reuse=0.35,tree-reuse-update-rate=20.0,prune-floor=1.0,mle-legacy(midpoint=72.0,steepness=20.0))' \
           option.TmTraceFile=nodes-trace.jsonl \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-20000}" --concurrency 2 \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
