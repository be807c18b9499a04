#!/usr/bin/env bash
# The rest of chain.sh's runs after a run under way (WAIT_FOR=PID), and the earlier binary alone on the machine
# (BEFORE=path, 200 games) for the sudden-death attention baseline; load average every 30 s in LABEL/load.txt.
set -uo pipefail
cd "$(dirname "$0")"
label=${LABEL:?set LABEL to the commit of the binary}
( while true; do echo "$(date -u +%FT%TZ) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done ) >> "$label/load.txt" &
logger=$!
trap 'kill $logger' EXIT
while [ -n "${WAIT_FOR:-}" ] && kill -0 "$WAIT_FOR" 2> /dev/null; do sleep 5; done
KAIROS=$BEFORE ./run.sh e1b161c/sudden-death-1+0-attention-alone 1+0 attention 200
./run.sh "$label/increment-1+0.01-attention" 1+0.01 attention
./run.sh "$label/repeating-40-1-attention" 40/1 attention
./run.sh "$label/repeating-40-1-maia" 40/1 maia
./ponder.sh "$label/ponder-1+0.01-maia" 1+0.01 maia
