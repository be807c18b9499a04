#!/usr/bin/env bash
# #34 item 1: the default manager with GatherWithinPlayoutsLeft=BOUND (engine `bounded`) against the same binary
# and manager with it off (engine `off`), on the virtual clock at TC and VirtualNps NPS (Threads=1, the 8mvs book
# shuffled with seed 7, two games at a time). BOUND=off plays the binary against itself, the reference that the
# other runs' moves are compared with (compare.py). SPRT=1 adds a non-regression SPRT (elo0=-10 elo1=5) and then
# plays until it decides or GAMES. Results in TC-NPS-BOUND/ (TC-NPS-BOUND-sprt/ with SPRT=1), or DIR/.
# usage: KAIROS=/path/to/kairos BOUND=small-moves TC=10+0.1 NPS=1400 [GAMES=20] [SPRT=1] run-match.sh [MATCH ARGS…]
# (extra arguments go to `kairos match`, e.g. --allow-mixed-binaries to resume with another binary)
set -euo pipefail
cd "$(dirname "$0")"
dir="${DIR:-$TC-$NPS-$BOUND${SPRT:+-sprt}}"
sprt=()
[ -n "${SPRT:-}" ] && sprt=(--sprt elo0=-10 elo1=5 alpha=0.05 beta=0.05)
mkdir -p "$dir" && cd "$dir"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$KAIROS" match \
  --engine name=bounded cmd=kairos option.GatherWithinPlayoutsLeft="$BOUND" \
  --engine name=off cmd=kairos option.GatherWithinPlayoutsLeft=off \
  --each tc="$TC" option.Threads=1 option.VirtualClock=true option.VirtualNps="$NPS" \
  --virtual-clock --games "${GAMES:-20}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  "${sprt[@]}" --results results.jsonl --pgn games.pgn "${resume[@]}" "$@"
