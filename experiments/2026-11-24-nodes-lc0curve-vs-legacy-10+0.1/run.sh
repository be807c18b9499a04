#!/usr/bin/env bash
# smooth(limit=nodes) with lc0's front-loading moves-left curve (mle-legacy's defaults, midpoint 51.5, steepness 7), the
# configuration of 2026-11-24-nodes-lc0curve-vs-smooth-lc0-10+0.1, against legacy at 10+0.1 on the virtual clock
# (EXPERIMENTS.md, #10). Resumable: run it again and it continues from results.jsonl; GAMES=N stops after N games.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=nodes cmd=kairos \
           'option.TimeManager=smooth(limit=nodes,init-nps=1400,init-timeuse=0.9,init-tree-reuse=0.35,tree-reuse-update-rate=20.0,prune-floor=0.9)' \
           option.TmTraceFile=nodes-trace.jsonl \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-20000}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
