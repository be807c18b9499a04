#!/usr/bin/env bash
# An H200 run of 2026-11-27: the gather with the tree lock released while the picked leaves
# are examined (.device/kairos, the per-pass form described in BENCHMARKS.md; not landed) against 1c3d0d3
# (.device/kairos-before), search NPS at 1, 2 and 4 threads on the three nets, and lc0 cuda-fp16 in the same sitting.
set -u
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))"):$PWD/.device/lib
N=/tmp/nets; D=${DEVICE:-cuda}; P=${PRECISION:-fp16}; MT=${MOVETIME:-2000}; LB=${LC0BACKEND:-cuda-fp16}
LC0=${LC0:-.device/lc0}
.device/make_test_nets --bench $N > /dev/null
cp weights/maia-1900.pb.gz $N/
start=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null
.device/kairos --version; .device/kairos-before --version
for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do
  for t in 1 2 4; do
    for k in kairos-before kairos; do
      echo "== $k $net threads $t" >> $OUT/benchmark.txt
      .device/$k benchmark --weights $N/$net.pb.gz --backend-device $D --precision $P --movetime $MT \
        --num-positions 2 --smart-pruning-factor 0 --threads $t >> $OUT/benchmark.txt 2>&1
      echo "$net t$t $k $(grep 'Nodes/second' $OUT/benchmark.txt | tail -1)"
    done
  done
  for t in 1 2; do
    echo "== lc0 $net threads $t" >> $OUT/lc0.txt
    $LC0 benchmark --weights=$N/$net.pb.gz --backend=$LB --threads=$t --movetime=$MT --num-positions=2 >> $OUT/lc0.txt 2>&1
    echo "$net t$t lc0 $(grep 'Nodes/second' $OUT/lc0.txt | tail -1)"
  done
  echo "$net: $((SECONDS-start)) s"
done
