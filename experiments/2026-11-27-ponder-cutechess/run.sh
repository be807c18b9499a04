#!/usr/bin/env bash
# #34 item 2: Kairos pondering as lc0 under cutechess-cli (fastchess has no ponder), 10+0.1, both engines the
# default manager with Ponder on, one game at a time on the 2 cores (each engine one search thread, so that both
# can search at once: one on its move, one pondering). Each chunk of games goes to its own folder (chunk-N), so
# that a run adds games without touching earlier ones; report.py counts terminations, ponder hits and misses.
# usage: CUTECHESS=/path/to/cutechess-cli KAIROS=target/release/kairos CHUNK=1 ROUNDS=30 \
#        experiments/2026-11-27-ponder-cutechess/run.sh
#   MODE=ponder-vs-no-ponder plays one engine with ponder against one without (what ponder is worth).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kairos=$(cd "$root" && realpath "${KAIROS:-target/release/kairos}")
mode=${MODE:-ponder-vs-ponder}
out="$here/$mode/chunk-${CHUNK:-1}"
mkdir -p "$out"
names=(ponder-1 ponder-2)
second_ponder=ponder
if [ "$mode" = ponder-vs-no-ponder ]; then names=(ponder no-ponder); second_ponder=""; fi
"$kairos" --version > "$out/version.txt"
# shellcheck disable=SC2086
"$CUTECHESS" \
  -engine cmd="$kairos" name="${names[0]}" ponder \
  -engine cmd="$kairos" name="${names[1]}" $second_ponder \
  -each proto=uci tc="${TC:-10+0.1}" option.Threads=1 "option.WeightsFile=$root/weights/maia-1900.pb.gz" \
  -openings file="$root/../shared/books/8mvs_+90_+99.epd" format=epd order=sequential start="$(( (${CHUNK:-1} - 1) * ${ROUNDS:-30} + 1 ))" \
  -repeat -games 2 -rounds "${ROUNDS:-30}" -concurrency 1 \
  -pgnout "$out/games.pgn" -debug all > "$out/cutechess-debug.log" 2>&1
grep -E "^(Score|Elo|Finished)" "$out/cutechess-debug.log" | tail -3 || true
