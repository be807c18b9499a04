#!/usr/bin/env bash
# Debian's Stockfish behind `kairos tm-proxy --time-manager=legacy` against the same Stockfish with its own time
# management, 10+0.1 on the wall clock, Threads=1, one game at a time unless CONCURRENCY=N (EXPERIMENTS.md, #11 item 4).
# Resumable: run it again and it continues from results.jsonl; GAMES=N (even) plays N in all (default 100).
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
stockfish="${STOCKFISH:-/usr/games/stockfish}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=proxied-legacy cmd=kairos arg=tm-proxy arg=--time-manager=legacy arg=-- "arg=$stockfish" virtualclock=no \
  --engine name=stockfish "cmd=$stockfish" \
  --each tc=10+0.1 option.Threads=1 option.Hash=16 \
  --games "${GAMES:-100}" --concurrency "${CONCURRENCY:-1}" \
  --openings ../../../shared/books/UHO_4060_v4.epd --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
