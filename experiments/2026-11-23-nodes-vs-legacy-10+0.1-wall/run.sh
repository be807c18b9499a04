#!/usr/bin/env bash
# The headline match of EXPERIMENTS.md on the wall clock: smooth(limit=nodes) against legacy at 10+0.1,
# one game at a time so that the two engines never share a core. Resumable: run it again to continue.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=nodes cmd=kairos 'option.TimeManager=smooth(limit=nodes,init-nps=1400,mle-legacy(midpoint=72.0))' \
           option.TmTraceFile=nodes-trace.jsonl \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 \
  --games "${GAMES:-40}" --concurrency 1 \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
