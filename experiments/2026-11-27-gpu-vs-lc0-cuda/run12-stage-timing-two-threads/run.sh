#!/usr/bin/env bash
# The last H100 run of 2026-11-27: where a search's time goes on CUDA at 1 and 2 search threads now that a second
# thread pays (the idle-backend exit, edges and encoding outside the tree lock): the stage-timing build of b473f3d
# (.device/kairos-stage-timing), `bench` of 30,000 nodes a position, fp16, graphs on, the three nets.
# DRY=1: the same on the CPU, 300 nodes.
set -u
export LD_LIBRARY_PATH=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))"):$PWD/.device/lib
S=.device/kairos-stage-timing; N=/tmp/nets
if [ -n "${DRY:-}" ]; then D=cpu P=auto NODES=300; else D=cuda P=fp16 NODES=30000; fi
mkdir -p $N && .device/make_test_nets --bench $N > /dev/null && cp weights/maia-1900.pb.gz $N/
start=$SECONDS
for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do
  for t in 1 2; do
    echo "== stage timing $net threads $t" | tee -a $OUT/stage-timing.txt
    $S bench --weights $N/$net.pb.gz --backend-device $D --precision $P --nodes $NODES --smart-pruning-factor 0 \
      --threads $t >> $OUT/stage-timing.txt 2>&1
    grep -E "nodes .* nps$" $OUT/stage-timing.txt | tail -1
    [ $((SECONDS-start)) -gt 200 ] && { echo "out of time"; break 2; }
  done
done
echo "all: $((SECONDS-start)) s"
