#!/usr/bin/env bash
# #34's retune: smooth(preset=kairos) with first-move-bonus=BONUS and first-move-bonus-decay=DECAY (0 unless
# given; engine `bonus`) against legacy, through run-vs-legacy.sh (the default's SPRT setting). Results in
# TC-bonus-BONUS/ (TC-bonus-BONUS-decay-DECAY/ with a decay). Resumable with the same binary (gunzip its files
# first).
# usage: KAIROS=/path/to/kairos TC=10+0.1 BONUS=1.5 [DECAY=0.7] [GAMES=400] run-first-move-bonus.sh
set -euo pipefail
cd "$(dirname "$0")"
NAME=bonus DIR="$TC-bonus-$BONUS${DECAY:+-decay-$DECAY}" \
  MANAGER="smooth(preset=kairos,first-move-bonus=$BONUS${DECAY:+,first-move-bonus-decay=$DECAY})" \
  exec ./run-vs-legacy.sh "$@"
