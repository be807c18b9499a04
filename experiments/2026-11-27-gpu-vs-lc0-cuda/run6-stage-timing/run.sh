#!/usr/bin/env bash
# The second H100 run of 2026-11-27: the graphs again (pinned buffers through aten::pin_memory without a device), where a
# search's time goes with graphs (stage-timing build), and the search after the gather's scratch buffers.
set -u
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch()['LD_LIBRARY_PATH'])"):$PWD/.device/lib
K=.device/kairos; S=.device/kairos-stage-timing; N=/tmp/nets
.device/make_test_nets --bench $N > /dev/null
cp weights/maia-1900.pb.gz $N/
start=$SECONDS
python3 scripts/gpu-check --kairos $K --skip-speed --reference .device/maia1900-reference.json --log $OUT/gpu-check.txt | tail -3
echo "gpu-check: $((SECONDS-start)) s"
$K backendbench --weights $N/maia-1900.pb.gz --device cuda --precision fp16 --batches 20 --max-batch-size 1024 > $OUT/backendbench-maia.txt 2>&1
tail -4 $OUT/backendbench-maia.txt
for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do
  for t in 1 2; do
    echo "== stage timing $net threads $t" | tee -a $OUT/stage-timing.txt
    $S bench --weights $N/$net.pb.gz --backend-device cuda --precision fp16 --nodes 30000 --smart-pruning-factor 0 \
      --threads $t >> $OUT/stage-timing.txt 2>&1
    grep -E "nodes .* nps$|run the network|gather|backup|all stages" $OUT/stage-timing.txt | tail -5
  done
done
echo "stage timing: $((SECONDS-start)) s"
for args in "--threads 1" "--threads 2" "--threads 2 --minibatch-size 512"; do
  echo "== benchmark maia-1900 $args" | tee -a $OUT/benchmark.txt
  $K benchmark --weights $N/maia-1900.pb.gz --backend-device cuda --precision fp16 --movetime 3000 --num-positions 2 \
    --smart-pruning-factor 0 $args >> $OUT/benchmark.txt 2>&1
  grep "Nodes/second" $OUT/benchmark.txt | tail -1
done
echo "all: $((SECONDS-start)) s"
