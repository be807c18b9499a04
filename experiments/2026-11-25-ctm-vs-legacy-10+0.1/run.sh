#!/usr/bin/env bash
# ctm with the CTM-Net 2.1 model trained on our Lichess clock data (experiments/2026-11-24-ctm-data) against
# legacy at 10+0.1 on the virtual clock (#11 item 6, EXPERIMENTS.md). The model budgets every move (the thesis
# starts it at move 1 too); legacy, its fallback, budgets only moves the model cannot. Resumable: run it again
# and it continues from results.jsonl; GAMES=N sets the length (default 100).
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=ctm cmd=kairos 'option.TimeManager=ctm(model="../2026-11-24-ctm-data/ctm-2.1.safetensors")' \
           option.TmTraceFile=ctm-trace.jsonl \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-100}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
