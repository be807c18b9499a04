#!/usr/bin/env bash
# Reliability at scale (#13 item 5, and #10's time losses at 1+0.01): 1,000 games at 1+0.01 on the wall clock,
# two games at a time, smooth(limit=nodes) with lc0's moves-left curve against legacy. rss.sh samples the
# resident memory of every engine process beside it. Resumable: run it again and it continues from
# results.jsonl; GAMES=N stops after N games.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
"$kairos" match \
  --engine name=nodes cmd=kairos \
           'option.TimeManager=smooth(limit=nodes,init-nps=1400,init-timeuse=0.9,init-tree-reuse=0.35,tree-reuse-update-rate=20.0,prune-floor=0.9)' \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=1+0.01 option.Threads=1 \
  --games "${GAMES:-1000}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}" &
match=$!
./rss.sh "$match" >> rss.tsv &
wait "$match"
