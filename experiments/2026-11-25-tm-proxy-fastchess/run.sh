#!/usr/bin/env bash
# tm-proxy under fastchess (#11 item 4): its UCI compliance check, then Stockfish behind
# `kairos tm-proxy --time-manager=ctm(model=…ctm-2.1…)` against Stockfish's own manager, 10+0.1, Threads=1,
# UHO_4060_v4 (random order, seed 7), GAMES games (default 10). FASTCHESS= and KAIROS= name the binaries.
set -euo pipefail
cd "$(dirname "$0")"
kairos="$(realpath "${KAIROS:-../../target/release/kairos}")"
fastchess="${FASTCHESS:-fastchess}"
stockfish="${STOCKFISH:-/usr/games/stockfish}"
model="$(realpath ../2026-11-24-ctm-data/ctm-2.1.safetensors)"
"$fastchess" --compliance "$kairos" "tm-proxy --time-manager=legacy -- $stockfish" > compliance.txt 2>&1 \
  || { tail -5 compliance.txt; exit 1; }
tail -1 compliance.txt
"$fastchess" \
  -engine name=proxied-ctm "cmd=$kairos" "args=tm-proxy --time-manager=ctm(model=\"$model\") -- $stockfish" \
  -engine name=stockfish "cmd=$stockfish" \
  -each tc=10+0.1 option.Threads=1 option.Hash=16 \
  -openings file=../../../shared/books/UHO_4060_v4.epd format=epd order=random -srand 7 \
  -rounds "$(( ${GAMES:-10} / 2 ))" -games 2 -repeat -concurrency 1 \
  -pgnout file=games.pgn -log file=fastchess.log level=warn
