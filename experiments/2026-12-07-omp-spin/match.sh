#!/usr/bin/env bash
# #106's flagging check as a user runs it: fastchess, 2+0.02, Kairos's default against `--time-manager=legacy`,
# both at their defaults, on a small random-weight attention-body net (reference/nets, embedding 32, 2 layers),
# 16 games (8 openings of UHO_4060_v4, random order, seed 106, each played with both colours), one game at a time.
# usage: FASTCHESS=path KAIROS=path experiments/2026-12-07-omp-spin/match.sh LABEL   (writes LABEL.pgn, LABEL.log)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
label=$1
kairos=$(realpath "${KAIROS:-$root/target/release/kairos}")
net=$root/reference/nets/transformer-pe-map-smolgen.pb.gz
book=$(realpath "${BOOK:-$root/../shared/books/UHO_4060_v4.epd}")
"${FASTCHESS:-fastchess}" \
  -engine name=default "cmd=$kairos" "args=--weights=$net" \
  -engine name=legacy "cmd=$kairos" "args=--weights=$net --time-manager=legacy" \
  -each tc=2+0.02 \
  -openings "file=$book" format=epd order=random -srand 106 \
  -rounds "${ROUNDS:-8}" -games 2 -repeat -concurrency 1 \
  -pgnout "file=$here/$label.pgn" -log "file=$here/$label.log" level=info
