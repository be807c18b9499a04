#!/usr/bin/env bash
# 200 games of smooth(limit=nodes) against legacy at 1+0.01 on the virtual clock: time losses (EXPERIMENTS.md, #10).
# Resumable: run it again and it continues from results.jsonl.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=nodes cmd=kairos 'option.TimeManager=smooth(limit=nodes,init-nps=1400,mle-legacy(midpoint=72.0))' \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=1+0.01 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games 200 --concurrency 1 \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
