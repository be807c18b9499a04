#!/usr/bin/env bash
# The runs of this folder one after another under LABEL/ (the binary's commit; a run whose games.pgn exists is
# skipped), with the machine's load average every 30 s in LABEL/load.txt.
# usage: FASTCHESS=path CUTECHESS=path KAIROS=path LABEL=commit chain.sh
set -uo pipefail
cd "$(dirname "$0")"
label=${LABEL:?set LABEL to the commit of the binary}
mkdir -p "$label"
( while true; do echo "$(date -u +%FT%TZ) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) >> "$label/load.txt" &
logger=$!
trap 'kill $logger' EXIT
./run.sh "$label/sudden-death-1+0-attention" 1+0 attention
./run.sh "$label/sudden-death-1+0-maia" 1+0 maia
./run.sh "$label/increment-1+0.01-attention" 1+0.01 attention
./run.sh "$label/repeating-40-1-attention" 40/1 attention
./run.sh "$label/repeating-40-1-maia" 40/1 maia
./ponder.sh "$label/ponder-1+0.01-maia" 1+0.01 maia
./ponder.sh "$label/ponder-1+0.01-attention" 1+0.01 attention
./run.sh "$label/increment-1+0.01-maia" 1+0.01 maia
