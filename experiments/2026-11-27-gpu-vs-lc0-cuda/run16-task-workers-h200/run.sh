#!/usr/bin/env bash
# The last H200 call of 2026-12-04 (#33 items 4–5): lc0's task workers in Kairos's descent, one binary (.device/kairos)
# with TaskWorkers at its default (−1: four a search thread on the 16-core host, by lc0's rule) against
# TaskWorkers 0 (the search thread descends alone, as before), search NPS (`benchmark`, lc0's first two positions
# × 2 s, no smart pruning, fp16) at Threads 1 and 2 on Maia-1900 and the 20×256 SE net (then the transformer while
# time is left), two rounds in opposite orders. DRY=1: the same on the CPU (TaskWorkers 2 there, 300 ms).
# .device/kairos is built from the first commit of task-workers.patch (e765381, the `task-workers` branch): main
# has no TaskWorkers option.
set -u
export LD_LIBRARY_PATH=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))"):$PWD/.device/lib
N=/tmp/nets; K=.device
if [ -n "${DRY:-}" ]; then D=cpu P=auto MT=300 ON=(--task-workers 2); else D=cuda P=fp16 MT=2000 ON=(); fi
mkdir -p $N $OUT && $K/make_test_nets --bench $N > /dev/null && cp weights/maia-1900.pb.gz $N/
start=$SECONDS
for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do
  for round in 1 2; do
    if [ $round = 1 ]; then order="alone tasks"; else order="tasks alone"; fi
    for t in 1 2; do
      for variant in $order; do
        [ $((SECONDS-start)) -gt 200 ] && { echo "skipped: out of time"; break 4; }
        if [ $variant = alone ]; then flags=(--task-workers 0); else flags=("${ON[@]}"); fi
        echo "== round $round $variant $net threads $t" >> $OUT/benchmark.txt
        $K/kairos benchmark --weights $N/$net.pb.gz --backend-device $D --precision $P --movetime $MT \
          --num-positions 2 --smart-pruning-factor 0 --threads $t "${flags[@]}" >> $OUT/benchmark.txt 2>&1
        echo "round $round $net t$t $variant $(grep 'Nodes/second' $OUT/benchmark.txt | tail -1)"
      done
    done
  done
done
echo "all: $((SECONDS-start)) s"
