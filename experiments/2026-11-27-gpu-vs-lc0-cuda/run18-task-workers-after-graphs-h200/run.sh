#!/usr/bin/env bash
# The second H200 call after run17, 2026-12-04 (#33 item 4): lc0's task workers again, now that the graphs are captured at load and
# the descent is the largest stage of a search thread on CUDA (run17's stage timing: 6.7 µs a node of 14.1 on Maia
# at one thread). The build: the task-workers branch's two commits (run16's task-workers.patch, e765381 and
# 2f96161: the pass stays on the search thread, only split subtrees go to the pool) applied on c779547, as
# .device/kairos-tw. `benchmark`, 2 positions × 2 s, no smart pruning, fp16, the three nets at Threads 1 and 2,
# TaskWorkers 0 against the default (−1: four workers a thread on the 16-core host), two rounds in opposite orders.
# DRY=1 runs it on a CPU (the CPU's precision, 300 ms, one position).
set -u
export LD_LIBRARY_PATH=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))"):$PWD/.device/lib
K=.device; N=/tmp/nets
if [ -n "${DRY:-}" ]; then D=cpu P=auto MT=300 NP=1; else D=cuda P=fp16 MT=2000 NP=2; fi
mkdir -p $N && $K/make_test_nets --bench $N > /dev/null && cp weights/maia-1900.pb.gz $N/
start=$SECONDS
for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do
  for t in 1 2; do
    for round in 1 2; do
      if [ $round = 1 ]; then order="0 -1"; else order="-1 0"; fi
      for tw in $order; do
        [ $((SECONDS-start)) -gt 270 ] && { echo "skipped: out of time"; break 4; }
        echo "== $net threads $t round $round task-workers $tw" >> $OUT/search-task-workers.txt
        $K/kairos-tw benchmark --weights $N/$net.pb.gz --backend-device $D --precision $P --threads $t \
          --task-workers=$tw --movetime $MT --num-positions $NP --smart-pruning-factor 0 \
          >> $OUT/search-task-workers.txt 2>&1
        echo "$net threads $t round $round task-workers $tw: $(grep -E '^Nodes/second' $OUT/search-task-workers.txt | tail -1)"
      done
    done
  done
done
echo "all: $((SECONDS-start)) s"
