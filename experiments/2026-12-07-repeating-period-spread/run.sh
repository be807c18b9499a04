#!/usr/bin/env bash
# A first look (no verdict; 200 games unless GAMES says): at a repeating control, does spreading each period's
# time over its `movestogo` moves beat the default, which spreads it over min(movestogo, lc0's moves-left
# estimate)? After the refill at own move 40, lc0's curve (midpoint 51.5, steepness 7) expects 9.7 more moves at
# ply 96 while these games play on for about 21 moves of the period, so the default spends a refilled period in
# about 20 moves and then moves on tens of milliseconds (the 40/10 SPRT's games beside this folder).
# The candidate is the default's small-tree manager with a moves-left curve too flat to bind (midpoint 1000), so
# `movestogo` alone sets the share. Everything else as the 40/10 SPRT: virtual clock at 1,400 nps, Threads=1,
# 8mvs shuffled with seed 7, each opening with both colours. Resumable (gunzip the .gz files first).
# usage: KAIROS=path run.sh
set -euo pipefail
cd "$(dirname "$0")"
resume=()
[ -f results.jsonl ] && resume=(--resume)
"${KAIROS:-kairos}" match \
  --engine name=period-spread cmd=kairos 'option.TimeManager=smooth(preset=kairos,mle-legacy(midpoint=1000))' \
  --engine name=default cmd=kairos \
  --each tc=40/10 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-200}" --concurrency 1 \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}" >> match.log 2>&1
