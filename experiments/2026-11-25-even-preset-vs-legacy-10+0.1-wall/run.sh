#!/usr/bin/env bash
# smooth(preset=even), the node limit with even tree sizes (the configuration of
# ../2026-11-25-nodes-search-forced-m68-vs-legacy-10+0.1 with lc0's linear NPS update), against legacy at 10+0.1 on
# the wall clock, two games at a time: the wall-clock confirmation of #10's evenness and clock rows (EXPERIMENTS.md).
# Resumable: run it again and it continues from results.jsonl; GAMES=N plays N in all.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=even cmd=kairos 'option.TimeManager=smooth(preset=even)' option.TmTraceFile=even-trace.jsonl \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 \
  --games "${GAMES:-40}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
