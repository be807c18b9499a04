#!/usr/bin/env bash
# The SPRT's engines (2026-11-24-nodes-lc0curve-vs-legacy-10+0.1) on the wall clock at 10+0.1, one game at a time:
# the wall-clock confirmation of #10's headline result (EXPERIMENTS.md). Resumable; GAMES=N plays N in all.
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
  --each tc=10+0.1 option.Threads=1 \
  --games "${GAMES:-100}" --concurrency "${CONCURRENCY:-1}" \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
