#!/usr/bin/env bash
# #34's retune: smooth(preset=kairos) with first-move-bonus=BONUS and first-move-bonus-decay=DECAY (0 unless
# given; engine `bonus`) against legacy on the virtual clock (VirtualNps 1400, Threads=1, the 8mvs book shuffled
# with seed 7, two games at a time), as the default's SPRTs against legacy at 10+0.1 and 60+0.6, so that pair k
# plays the same opening as their pair k and trajectory.py's and paired.py's rows compare with theirs. SPRT
# elo0=0 elo1=10; GAMES=N stops after N games. Results in TC-bonus-BONUS/ (TC-bonus-BONUS-decay-DECAY/ with a
# decay). Resumable with the same binary (gunzip its files first).
# usage: KAIROS=/path/to/kairos TC=10+0.1 BONUS=1.5 [DECAY=0.7] [GAMES=400] run-first-move-bonus.sh
set -euo pipefail
cd "$(dirname "$0")"
dir="$TC-bonus-$BONUS${DECAY:+-decay-$DECAY}"
mkdir -p "$dir" && cd "$dir"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$KAIROS" match \
  --engine name=bonus cmd=kairos "option.TimeManager=smooth(preset=kairos,first-move-bonus=$BONUS${DECAY:+,first-move-bonus-decay=$DECAY})" \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc="$TC" option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-400}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
  --results results.jsonl --pgn games.pgn "${resume[@]}" "$@"
