#!/usr/bin/env bash
# smooth(preset=kairos), the default manager (the SPRT's configuration with lc0's linear NPS update), against
# legacy at 10+0.1 on the wall clock, two games at a time: the wall-clock confirmation of #10's SPRT
# (EXPERIMENTS.md). Resumable: run it again and it continues from results.jsonl; GAMES=N plays N in all. Extra
# arguments go to `kairos match` (continued on 2026-11-27 with --allow-mixed-binaries: a newer binary, another CPU).
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=kairos cmd=kairos 'option.TimeManager=smooth(preset=kairos)' option.TmTraceFile=kairos-trace.jsonl \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 \
  --games "${GAMES:-200}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}" "$@"
