#!/usr/bin/env bash
# usage: run.sh BINARY DIR GAMES
set -euo pipefail
mkdir -p "$2" && cd "$2"
"$1" match \
    --engine name=bare cmd=kairos "option.TimeManager=smooth(limit=nodes)" \
    --engine name=kairos cmd=kairos "option.TimeManager=smooth(preset=kairos)" \
    --each tc=1+0.01 option.Threads=1 option.VirtualClock=true option.VirtualNps=500 \
    --virtual-clock --games "$3" --concurrency 2 \
    --openings /work/shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
    --results results.jsonl --pgn games.pgn > match.log 2>&1
