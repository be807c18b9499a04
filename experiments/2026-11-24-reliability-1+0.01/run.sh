#!/usr/bin/env bash
# Reliability at scale (#13 item 5, and #10's time losses at 1+0.01): 1,000 games at 1+0.01 on the wall clock,
# two games at a time, smooth(limit=nodes) with lc0's moves-left curve against legacy. rss.sh samples the
# resident memory of every engine process beside it. Resumable: run it again and it continues from
# results.jsonl; GAMES=N stops after N games; OUT=DIR writes the files there instead of beside this script
# (../2026-11-25-reliability-padded-1+0.01 is OUT=that GAMES=500 with the build of 458e330). NAME and TM replace
# the first engine's name and TimeManager (../2026-11-25-reliability-default-1+0.01: NAME=kairos
# TM='smooth(preset=kairos)', Kairos's default manager since 2026-11-25).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kairos="$(realpath "${KAIROS:-$here/../../target/release/kairos}")"
book="$here/../../../shared/books/8mvs_+90_+99.epd"
cd "${OUT:-$here}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
"$kairos" match \
  --engine "name=${NAME:-nodes}" cmd=kairos \
           "option.TimeManager=${TM:-smooth(limit=nodes,init-nps=1400,init-timeuse=0.9,init-tree-reuse=0.35,tree-reuse-update-rate=20.0,prune-floor=0.9)}" \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=1+0.01 option.Threads=1 \
  --games "${GAMES:-1000}" --concurrency "${CONCURRENCY:-2}" \
  --openings "$book" --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}" &
match=$!
"$here/rss.sh" "$match" >> rss.tsv &
wait "$match"
