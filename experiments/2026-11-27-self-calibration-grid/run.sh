#!/usr/bin/env bash
# #34 item 1's target grid: bare `smooth(limit=nodes)` (its own defaults: init-nps from the engine's calibration,
# lc0's moves-left curve) head to head with Kairos's default `smooth(preset=kairos)`, on the virtual clock at
# VirtualNps 500, 1,400, 5,000 and 20,000 and at 1+0.01, 10+0.1 and 60+0.6 (Threads=1, 8mvs book shuffled with
# seed 7, both managers' traces kept). Each cell is its own folder nps-N-tc-T with results.jsonl, games.pgn and the
# traces; GAMES games a cell (default 10), resumable (run again and each cell continues to GAMES; gunzip the
# committed files first). CELLS="N:T …" picks cells (default: every cell but 20,000 at 60+0.6, about 7 minutes a
# game on the 2-core Xeon). `report.sh` tabulates tree-size CV and clock use from them.
# BARE="smooth(…)" plays another string in bare's place and OUT=DIR puts its cells under DIR (default: here).
# usage: KAIROS=/path/to/kairos [GAMES=10] [CONCURRENCY=2] [BARE=…] [OUT=…] experiments/2026-11-27-self-calibration-grid/run.sh
set -euo pipefail
kairos=$(realpath "${KAIROS:-$(dirname "$0")/../../target/release/kairos}")
book=$(realpath "$(dirname "$0")/../../../shared/books/8mvs_+90_+99.epd")
cd "${OUT:-$(dirname "$0")}"
default_cells="500:1+0.01 1400:1+0.01 5000:1+0.01 20000:1+0.01 500:10+0.1 1400:10+0.1 5000:10+0.1 20000:10+0.1
  500:60+0.6 1400:60+0.6 5000:60+0.6"
for cell in ${CELLS:-$default_cells}; do
  nps=${cell%%:*}; tc=${cell#*:}
  dir="nps-$nps-tc-$tc"
  mkdir -p "$dir"
  resume=()
  [ -s "$dir/results.jsonl" ] && resume=(--resume)
  (cd "$dir" && "$kairos" match \
    --engine name=bare cmd=kairos "option.TimeManager=${BARE:-smooth(limit=nodes)}" option.TmTraceFile=bare-trace.jsonl \
    --engine name=kairos cmd=kairos "option.TimeManager=smooth(preset=kairos)" option.TmTraceFile=kairos-trace.jsonl \
    --each tc="$tc" option.Threads=1 option.VirtualClock=true option.VirtualNps="$nps" \
    --virtual-clock --games "${GAMES:-10}" --concurrency "${CONCURRENCY:-2}" \
    --openings "$book" --openings-order shuffled --seed 7 \
    --results results.jsonl --pgn games.pgn "${resume[@]}" > match.log 2>&1)
  echo "$dir: $(wc -l < "$dir/results.jsonl") games"
done
