#!/bin/bash
# Two Kairos builds' `backendbench` (Maia-1900, defaults: bf16 here, BATCHES batches of SIZE) at once, one core each,
# the cores swapped every round, so that the host's slow phases strike both alike. A line a round: each build's
# core and median evaluations/s.
# usage: backendbench-simultaneous.sh ROUNDS SIZE KAIROS_A KAIROS_B > results.txt
W=$(cd "$(dirname "$0")/../.." && pwd)/weights/maia-1900.pb.gz
median() { taskset -c $1 $2 backendbench --weights $W --batches ${BATCHES:-60} --start-batch-size $3 \
  --max-batch-size $3 2>&1 | tail -1 | cut -d, -f7 | tr -d ' ' > $4; }
a=$(mktemp); b=$(mktemp)
for i in $(seq $1); do
  if [ $((i % 2)) = 1 ]; then ca=0; cb=1; else ca=1; cb=0; fi
  median $ca $3 $2 $a & median $cb $4 $2 $b & wait
  echo "$i size $2 A@$ca $(cat $a) B@$cb $(cat $b)"
done
rm -f $a $b
