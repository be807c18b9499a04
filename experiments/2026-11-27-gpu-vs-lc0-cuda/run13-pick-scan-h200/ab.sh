#!/usr/bin/env bash
# The second H200 call of 2026-11-28: the A/B of .device/kairos (318a580, the pick's scan) against .device/kairos-before
# (7a21187) repeated in two more rounds, each round in the other order, after run.sh's round with kairos-before first.
set -u
torch_libs=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))")
export LD_LIBRARY_PATH=$torch_libs:$PWD/.device/lib
N=/tmp/nets; K=.device
if [ -n "${DRY:-}" ]; then D=cpu P=auto MT=300; else D=cuda P=fp16 MT=2000; fi
start=$SECONDS
mkdir -p $N $OUT
$K/make_test_nets --bench $N > /dev/null && cp weights/maia-1900.pb.gz $N/
for round in 2 3; do
  if [ $round = 2 ]; then order="kairos kairos-before"; else order="kairos-before kairos"; fi
  for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do
    for t in 1 2; do
      for k in $order; do
        [ $((SECONDS-start)) -gt 400 ] && { echo "skipped: out of time"; break 4; }
        echo "== round $round $k $net threads $t" >> $OUT/benchmark-rounds-2-3.txt
        $K/$k benchmark --weights $N/$net.pb.gz --backend-device $D --precision $P --movetime $MT \
          --num-positions 2 --smart-pruning-factor 0 --threads $t >> $OUT/benchmark-rounds-2-3.txt 2>&1
        echo "round $round $net t$t $k $(grep 'Nodes/second' $OUT/benchmark-rounds-2-3.txt | tail -1)"
      done
    done
  done
done
echo "all: $((SECONDS-start)) s"
