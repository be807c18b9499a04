#!/usr/bin/env bash
# smooth(limit=nodes) as in 2026-11-24-nodes-vs-smooth-lc0-10+0.1 but with lc0's front-loading moves-left curve
# (mle-legacy's defaults, midpoint 51.5, steepness 7), against
# lc0's smooth(preset=lc0) at 10+0.1 on the virtual clock (EXPERIMENTS.md). Resumable; GAMES=N plays N in all.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=nodes cmd=kairos \
           'option.TimeManager=smooth(limit=nodes,init-nps=1400,init-timeuse=0.9,init-tree-reuse=0.35,tree-reuse-update-rate=20.0,prune-floor=0.9)' \
  --engine name=smooth-lc0 cmd=kairos 'option.TimeManager=smooth(preset=lc0)' \
  --each tc=10+0.1 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-40}" --concurrency 2 \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
