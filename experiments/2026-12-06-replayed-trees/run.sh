#!/usr/bin/env bash
# #33 item 5 on a CPU: the search's own cost on a real network's trees, Kairos beside lc0. Each engine records its
# search of lc0's first 4 benchmark positions to 60,000 nodes each on Maia-1900 (one search thread, minibatch 256, no
# time limit; lc0 onednn through its `recordreplay` backend, Kairos with `RecordFile`), then replays it ROUNDS times
# without the network (lc0 `replay_file`, Kairos `Backend=replay`), the engines alternating; a line a replay with its
# nodes, NPS and cores busy (CPU time over wall time). The replay's batches wait DELAY_MS (Kairos only; lc0's replay
# has no delay, so it is 0 by default).
# Usage: LC0=…/build/onednn/lc0 KAIROS=target/release/kairos OUT=dir [ROUNDS=5] [TASK_WORKERS=0] run.sh > results.txt
set -euo pipefail
lc0="${LC0:?path of lc0 built with onednn}"
kairos="${KAIROS:?path of kairos}"
out="${OUT:?folder for the recordings}"
weights="$(cd "$(dirname "$0")/../.." && pwd)/weights/maia-1900.pb.gz"
mkdir -p "$out"
lc0_run() {
  "${timer[@]}" "$lc0" benchmark --weights="$weights" --nodes=60000 --movetime=-1 --num-positions=4 --threads=1 \
    --task-workers="${TASK_WORKERS:-0}" --minibatch-size=256 --backend=recordreplay --backend-opts="$1"
}
kairos_run() {
  "${timer[@]}" "$kairos" benchmark --nodes 60000 --movetime -1 --num-positions 4 --threads 1 --minibatch-size 256 \
    --smart-pruning-factor 0 --record-file "$out/kairos.rec" "$@"
}
timer=()
[ -s "$out/lc0.rec" ] || lc0_run "backend=onednn,record_file=$out/lc0.rec" > "$out/lc0-record.txt" 2>&1
[ -s "$out/kairos.rec" ] || kairos_run > "$out/kairos-record.txt" 2>&1
echo "recorded: lc0 $(grep -c '^bestmove' "$out/lc0-record.txt") positions, $(awk '/Nodes searched/ {print $4}' \
  "$out/lc0-record.txt") nodes; kairos $(awk '/Nodes searched/ {print $4}' "$out/kairos-record.txt") nodes"
timer=(/usr/bin/time -f "%e %U %S" -o /tmp/replay-time.txt)
busy() { awk 'END {printf "%.2f", ($2 + $3) / $1}' /tmp/replay-time.txt; }
for round in $(seq 1 "${ROUNDS:-5}"); do
  for engine in lc0 kairos; do
    if [ "$engine" = lc0 ]; then
      lc0_run "backend=onednn,replay_file=$out/lc0.rec" > "$out/lc0-replay.txt" 2>&1
      moves=$(grep '^bestmove' "$out/lc0-replay.txt" | tr '\n' ' ')
      expected=$(grep '^bestmove' "$out/lc0-record.txt" | tr '\n' ' ')
    else
      kairos_run --backend replay --test-backend-delay-ms "${DELAY_MS:-0}" > "$out/kairos-replay.txt" 2>&1
      moves=$(grep '^bestmove' "$out/kairos-replay.txt" | tr '\n' ' ')
      expected=$(grep '^bestmove' "$out/kairos-record.txt" | tr '\n' ' ')
    fi
    nodes=$(awk '/Nodes searched/ {print $4}' "$out/$engine-replay.txt")
    nps=$(awk '/Nodes\/second/ {print $3}' "$out/$engine-replay.txt")
    same=$([ "$moves" = "$expected" ] && echo "same moves as recorded" || echo "MOVES DIFFER: $moves")
    echo "round $round $engine: $nodes nodes, $nps NPS, $(busy) cores busy, $same"
  done
done
