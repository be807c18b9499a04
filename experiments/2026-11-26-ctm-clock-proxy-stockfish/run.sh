#!/usr/bin/env bash
# Debian's Stockfish behind `kairos tm-proxy --limit-as=clock` with the CTM-Net 2.1 model trained on our Lichess
# clock data (experiments/2026-11-24-ctm-data) against the same Stockfish with its own time management (#11
# item 6, EXPERIMENTS.md). Unlike experiments/2026-11-25-ctm-proxy-stockfish (`go movetime`), the proxied
# Stockfish gets a clock scaled so that its own time management spends CTM's planned time on average: CTM
# decides how much a move is worth, Stockfish's stop rules still end each move. Wall clock, Threads=1,
# Hash=16, UHO_4060_v4 shuffled (seed 7), concurrency 2. TC=10+0 (default) or 60+0 picks the time control;
# each writes its own results file (with LABEL=name, results-$TC-name.jsonl and so on, for another binary).
# TM='legacy' (with LABEL) puts another manager in CTM's place, as a control on the same scaled clock.
# Resumable: run it again and it continues from results-$TC.jsonl; GAMES=N (even) plays N in all (default 100).
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
stockfish="${STOCKFISH:-/usr/games/stockfish}"
tc="${TC:-10+0}"
run="$tc${LABEL:+-$LABEL}"
manager="${TM:-ctm(model=\"../2026-11-24-ctm-data/ctm-2.1.safetensors\")}"
resume=()
[ -s "results-$run.jsonl" ] && resume=(--resume)
exec "$kairos" match \
  --engine "name=proxied-${manager%%(*}-clock" cmd=kairos arg=tm-proxy arg=--limit-as=clock \
           "arg=--time-manager=$manager" arg=-- "arg=$stockfish" \
           virtualclock=no \
  --engine name=stockfish "cmd=$stockfish" \
  --each "tc=$tc" option.Threads=1 option.Hash=16 \
  --games "${GAMES:-100}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../shared/books/UHO_4060_v4.epd --openings-order shuffled --seed 7 \
  --results "results-$run.jsonl" --pgn "games-$run.pgn" "${resume[@]}"
