#!/usr/bin/env bash
# #11 item 5: the two kinds of CTM as Kairos's time manager. A ctm-2.1 net trained on search labels (kairos
# tm-label: how much 8x more search changes the decision) plays legacy at 10+0.1 on the virtual clock, the
# setting in which the ctm-2.1 net trained on human clocks played legacy (experiments/2026-11-25-ctm-vs-legacy-10+0.1).
# The labels and the net come first, from the repository root:
#   OUT=experiments/2026-11-25-ctm-labels-vs-legacy-10+0.1 LIMIT=3000 ARCHS=ctm-2.1 BATCH=256 \
#     sh experiments/2026-11-25-ctm-search-labels/run.sh
# base-share=0.045 gives a position of average instability the human net's mean share in play (its trace:
# 3.0 % over moves 1-10, 4.9 % over 11-20, 5.5 % after), so that the two nets differ in where they spend, not
# how much. Resumable: run it again and it continues from results.jsonl; GAMES=N sets the length (default 100).
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=ctm-labels cmd=kairos 'option.TimeManager=ctm(model="ctm-2.1.safetensors", base-share=0.045)' \
           option.TmTraceFile=ctm-trace.jsonl \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-100}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
