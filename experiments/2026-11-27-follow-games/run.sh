#!/usr/bin/env bash
# #34 item 1: does mle-legacy(follow-games=4) help? Head to head on the virtual clock at 10+0.1 (VirtualNps 1400,
# Threads=1, 8mvs book, seed 7), the same manager with and without the option, in two conditions:
#   CONDITION=wrong-prior: smooth(preset=kairos) with mle-legacy's midpoint set to 30 full moves (the games here
#     last about 51 full moves from the book's end: a user's misjudged constant), fixed against following;
#   CONDITION=right-prior: Kairos's default, smooth(preset=kairos) (midpoint 51.5, about right here), fixed
#     against following (that it does no harm where the prior is right).
# Each condition writes CONDITION/results.jsonl, games.pgn and both sides' manager traces; resumable (run again
# and it continues; gunzip the committed CONDITION/results.jsonl.gz first); GAMES=N games (default 40). Report:
# kairos match-report CONDITION/results.jsonl --out ...
set -euo pipefail
cd "$(dirname "$0")"
kairos=$(realpath "${KAIROS:-../../target/release/kairos}")
condition="${CONDITION:-wrong-prior}"
case "$condition" in
  wrong-prior) fixed='smooth(preset=kairos,mle-legacy(midpoint=30))'
               following='smooth(preset=kairos,mle-legacy(midpoint=30,follow-games=4))';;
  right-prior) fixed='smooth(preset=kairos)'
               following='smooth(preset=kairos,mle-legacy(follow-games=4))';;
  *) echo "CONDITION is wrong-prior or right-prior" >&2; exit 2;;
esac
mkdir -p "$condition"
cd "$condition"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=following cmd=kairos "option.TimeManager=$following" option.TmTraceFile=following-trace.jsonl \
  --engine name=fixed cmd=kairos "option.TimeManager=$fixed" option.TmTraceFile=fixed-trace.jsonl \
  --each tc=10+0.1 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-40}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
