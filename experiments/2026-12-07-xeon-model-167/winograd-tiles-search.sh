#!/usr/bin/env bash
# Does the tile choice show in a search? Kairos's benchmark (lc0's first 4 positions x 5 s, no smart pruning,
# defaults, both cores): Maia-1900 (bf16 on AMX: batches up to 7 in Rust), committed build against F(4x4) for
# every batch; then the 20x256 tower in fp32 (every batch in Rust), committed against F(2x2) for every batch.
# The builds as in winograd-tiles.sh.
set -euo pipefail
maia=$(cd "$(dirname "$0")/../.." && pwd)/weights/maia-1900.pb.gz
nps() { awk '/^Nodes\/second/ {print $3}'; }
for round in 1 2; do
  for k in /tmp/kairos-head /tmp/kairos-f4x4-only; do
    echo "round $round maia $(basename $k): $($k benchmark --weights "$maia" --movetime 5000 \
      --num-positions 4 --smart-pruning-factor 0 2>&1 | nps)"
  done
done
for round in 1 2; do
  for k in /tmp/kairos-head /tmp/kairos-f2x2-only; do
    echo "round $round se-20x256 fp32 $(basename $k): $($k benchmark \
      --weights /tmp/kairos-bench-nets/bench-se-20x256.pb.gz --precision fp32 --movetime 5000 \
      --num-positions 4 --smart-pruning-factor 0 2>&1 | nps)"
  done
done
