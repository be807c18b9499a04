#!/usr/bin/env bash
# tm-proxy under cutechess-cli (#11 item 4): Debian's Stockfish behind `kairos tm-proxy --limit-as=clock` with
# CTM-Net 2.1 (experiments/2026-11-24-ctm-data) against the same Stockfish with its own time management,
# 10+0.1, Threads=1, Hash=16, UHO_4060_v4 in random order (seed 7), each opening twice with colours reversed,
# concurrency 2. CUTECHESS=/path/to/cutechess-cli (built from cutechess/cutechess: cmake -DWITH_TESTS=OFF, then
# make cli; it needs Qt 6, apt-get install qt6-base-dev qt6-svg-dev). GAMES=N (even) plays N (default 100).
# Writes games.pgn and cutechess.log, where cutechess names how each game ended (a flag: "loses on time").
set -euo pipefail
cd "$(dirname "$0")"
here="$(pwd)"
kairos="$(realpath "${KAIROS:-../../target/release/kairos}")"
stockfish="${STOCKFISH:-/usr/games/stockfish}"
model="$(realpath ../2026-11-24-ctm-data/ctm-2.1.safetensors)"
games="${GAMES:-100}"
"${CUTECHESS:?set CUTECHESS to a cutechess-cli binary}" \
  -engine name=proxied-ctm-clock "cmd=$kairos" arg=tm-proxy arg=--limit-as=clock \
          "arg=--time-manager=ctm(model=$model)" arg=-- "arg=$stockfish" \
  -engine name=stockfish "cmd=$stockfish" \
  -each proto=uci tc=10+0.1 option.Threads=1 option.Hash=16 \
  -openings "file=$here/../../../shared/books/UHO_4060_v4.epd" format=epd order=random -srand 7 \
  -repeat -games 2 -rounds $((games / 2)) -concurrency "${CONCURRENCY:-2}" -ratinginterval 10 \
  -pgnout games.pgn 2>&1 | tee cutechess.log
