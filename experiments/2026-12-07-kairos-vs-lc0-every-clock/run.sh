#!/usr/bin/env bash
# #106 item 4: Kairos against lc0 itself on the same network (Maia-1900), the wall clock, one clock of each kind.
# A gauntlet: lc0 909a4082 (its onednn backend, lc0's best on a CPU without a GPU, and its default manager
# `legacy`) against Kairos's default and against Kairos with `legacy(preset=lc0)` and MoveFloorReserve off, exactly
# lc0's manager and clock arithmetic, so that
# the second pairing measures what Kairos's speed is worth and the gap between the two what its manager adds. Both
# engines otherwise at their defaults, one search thread each (Threads=1), two games at a time on two cores, 8mvs
# openings shuffled with seed 7, each opening with both colours, GAMES games a pairing (default 200).
# Resumable: run it again with the same arguments (gunzip the folder's .gz files first if only those are there).
# usage: KAIROS=path LC0=path run.sh TC [GAMES]     TC: 10+0.1 (increment), 10+0 (sudden death), 40/10 (repeating)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tc=${1:?the clock: 10+0.1, 10+0 or 40/10}
kairos="$(realpath "${KAIROS:-$here/../../target/release/kairos}")"
lc0="$(realpath "${LC0:?set LC0 to an lc0 built with its onednn backend}")"
weights="$(realpath "$here/../../weights/maia-1900.pb.gz")"
book="$(realpath "$here/../../../shared/books/8mvs_+90_+99.epd")"
folder="$here/${tc//\//-}"
mkdir -p "$folder"
cd "$folder"
resume=()
[ -s results.jsonl ] && resume=(--resume)
{ echo "# $(date -u +%FT%TZ) $("$kairos" --version); $("$lc0" --help 2>&1 | head -1); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) cores"
  echo "KAIROS=$kairos LC0=$lc0 $0 $*"; } >> command.txt
"$kairos" match \
  --engine name=lc0 cmd="$lc0" arg=--weights="$weights" arg=--backend=onednn \
  --engine name=kairos cmd="$kairos" \
  --engine name=kairos-legacy-lc0 cmd="$kairos" 'option.TimeManager=legacy(preset=lc0)' option.MoveFloorReserve=false \
  --each "tc=$tc" option.Threads=1 \
  --tournament gauntlet --games "${2:-200}" --concurrency 2 \
  --openings "$book" --openings-order shuffled --seed 7 \
  --results results.jsonl --pgn games.pgn "${resume[@]}" >> match.log 2>&1
"$kairos" match-report results.jsonl --out report > /dev/null
