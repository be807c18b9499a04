#!/usr/bin/env bash
# Two Kairos engines under fastchess with a panic injected into every search (KAIROS_INJECT_FAULT, engine/src/fault.rs):
# every game must end by the rules, with no time loss, disconnect, illegal move or stall.
# usage: FASTCHESS=/path/to/fastchess KAIROS=target/release/kairos experiments/2026-11-27-panic-under-fastchess/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kairos=$(cd "$root" && realpath "${KAIROS:-target/release/kairos}")
book="$root/../shared/books/8mvs_+90_+99.epd"
for fault in search:3 bestmove end-of-move; do
  out="$here/${fault%%:*}"
  mkdir -p "$out"
  # fastchess saves its state to config.json in the working directory: each run keeps its own in its folder.
  (cd "$out" && KAIROS_INJECT_FAULT=$fault "$FASTCHESS" \
    -engine cmd="$kairos" name=legacy option.TimeManager=legacy option.Threads=1 \
    -engine cmd="$kairos" name=smooth option.TimeManager=smooth option.Threads=1 \
    -each tc=3+0.03 option.WeightsFile="$root/weights/maia-1900.pb.gz" \
    -openings file="$book" format=epd order=sequential \
    -rounds 5 -games 2 -repeat -concurrency 1 \
    -pgnout file="$out/games.pgn" -log file="$out/fastchess.log" level=warn > "$out/stdout.txt" 2>&1)
done
