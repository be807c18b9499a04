#!/usr/bin/env bash
# Replays game 944 of this SPRT alone (the virtual clock makes it exact): the `nodes` engine sends no bestmove
# at game ply 244 (its 115th move after the book) and the match ends the game as EngineHung after 60 s.
# About 90 s. KAIROS= names the binary (the SPRT's was e6c0774).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kairos="$(realpath "${KAIROS:-$here/../../target/release/kairos}")"
work="$(mktemp -d)"
cd "$work"
zcat "$here/results.jsonl.gz" | python3 -c '
import json, sys
for line in sys.stdin:
    if json.loads(line)["game_id"] < 946 and json.loads(line)["game_id"] != 944:
        sys.stdout.write(line)' > results.jsonl
"$kairos" match \
  --engine name=nodes cmd=kairos \
           'option.TimeManager=smooth(limit=nodes,init-nps=1400,init-timeuse=0.9,init-tree-reuse=0.35,tree-reuse-update-rate=20.0,prune-floor=0.9)' \
           option.TmTraceFile=nodes-trace.jsonl \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games 946 --concurrency 1 \
  --openings "$here/../../../shared/books/8mvs_+90_+99.epd" --openings-order shuffled --seed 7 \
  --results results.jsonl --resume > /dev/null
grep '"game_id":944' results.jsonl | python3 -c 'import json,sys; g=json.loads(sys.stdin.read()); print(g["termination"], g["reason"])'
echo "files in $work"
