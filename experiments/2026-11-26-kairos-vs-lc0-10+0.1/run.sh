#!/usr/bin/env bash
# Kairos against lc0 on the same network (Maia-1900), each at its defaults, 10+0.1 on the wall clock: what #12's
# speed is worth against the engine Kairos replicates. KAIROS is the build to play (default: this checkout's
# release build), LC0 an lc0 built with its blas backend (BENCHMARKS.md says how). Both run one search thread
# (Threads=1; lc0's blas backend and Kairos's BackendThreads both default to one core), two games at a time, 8mvs
# openings shuffled with seed 7. Resumable (gunzip results.jsonl.gz first); GAMES sets the games (default 40).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kairos="$(realpath "${KAIROS:-$here/../../target/release/kairos}")"
lc0="$(realpath "${LC0:?set LC0 to an lc0 binary built with blas}")"
weights="$(realpath "$here/../../weights/maia-1900.pb.gz")"
book="$here/../../../shared/books/8mvs_+90_+99.epd"
cd "$here"
resume=()
[ -s results.jsonl ] && resume=(--resume)
"$kairos" match --engine name=kairos cmd="$kairos" \
  --engine name=lc0 cmd="$lc0" arg=--weights="$weights" arg=--backend=blas \
  --each tc=10+0.1 option.Threads=1 \
  --games "${GAMES:-40}" --concurrency 2 --openings "$book" --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}" | tail -n 6 | tee summary.txt
