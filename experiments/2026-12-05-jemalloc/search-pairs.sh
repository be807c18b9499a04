#!/bin/bash
# Two Kairos builds' `benchmark` (lc0's first 2 positions × 3 s, no smart pruning, Maia-1900, defaults) in PAIRS
# pairs, the order alternating a pair to a pair, on the cores given (taskset). A line a pair: A's NPS, B's, B ÷ A.
# usage: search-pairs.sh PAIRS CORES KAIROS_A KAIROS_B > results.txt
W=$(cd "$(dirname "$0")/../.." && pwd)/weights/maia-1900.pb.gz
run() { taskset -c $2 $1 benchmark --weights $W --movetime 3000 --num-positions 2 --smart-pruning-factor 0 2>&1 | awk '/^Nodes\/second/ {print $3}'; }
for i in $(seq $1); do
  if [ $((i % 2)) = 1 ]; then a=$(run $3 $2); b=$(run $4 $2); else b=$(run $4 $2); a=$(run $3 $2); fi
  echo "$i $a $b $(echo "scale=3; $b/$a" | bc)"
done
