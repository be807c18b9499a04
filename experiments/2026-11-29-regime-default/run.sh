#!/usr/bin/env bash
# #34: the default, regime, plays each game as the manager it chooses. For each time control, two games of
# `regime` against legacy and the same two games with regime's expected choice in its place (the SPRT settings
# of experiments/2026-11-28-where-the-elo-goes: VirtualNps 1400, Threads=1, the 8mvs book shuffled with seed 7);
# same.py then compares the two runs move by move.
# usage: KAIROS=/path/to/kairos run.sh [extra --each options]
set -euo pipefail
cd "$(dirname "$0")"
play() { # DIR TC MANAGER
  mkdir -p "$1"
  "$KAIROS" match \
    --engine name=first cmd=kairos "option.TimeManager=$3" \
    --engine name=legacy cmd=kairos option.TimeManager=legacy \
    --each tc="$2" option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 "${@:4}" \
    --virtual-clock --games 2 --concurrency 1 \
    --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
    --results "$1/results.jsonl" --pgn "$1/games.pgn" > "$1/match.log"
}
shift_args=("$@")
play 60+0.6-regime 60+0.6 regime "${shift_args[@]}"
play 60+0.6-legacy 60+0.6 legacy "${shift_args[@]}"
play 10+0.1-regime 10+0.1 regime "${shift_args[@]}"
play 10+0.1-preset 10+0.1 'smooth(preset=kairos)' "${shift_args[@]}"
python3 same.py 60+0.6-regime 60+0.6-legacy
python3 same.py 10+0.1-regime 10+0.1-preset
