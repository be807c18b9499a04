#!/usr/bin/env bash
# The H200 run of 2026-12-04 (evening), one command of under 10 minutes (#33 items 3–5): the network thread's host side of a
# batch on CUDA, changed in two ways: every padded batch size's CUDA graph captured when the backend loads (a search
# captured each size at its first batch of that size, in its own time), and one wait a batch (the copies in and out
# queued without waiting, then one synchronize, where each of the five copies waited for itself).
#  1. scripts/gpu-compare --threads 1,2 --movetime 2000, .device/kairos (the change) against .device/kairos-before
#     (43027be, before it) and lc0 cuda-fp16; its gpu-check first (the reference outputs and graphs against eager);
#  2. the stage-timing build of the change (.device/kairos-stage-timing): bench of 30,000 nodes a position, the three
#     nets at Threads 1 and 2, with the network thread's own stages (inputs, replay and copies, reading outputs);
#  3. what the captures at load cost: the wall time of `benchmark --nodes 1` of each build on each net.
# Carried: .device/ (kairos, kairos-before, kairos-stage-timing, lc0, make_test_nets, maia1900-reference.json, lib/)
# and weights/; experiments/ is taken out of the index for the call (the tracked tree is over the 64 MiB that may be copied to the GPU host):
#   git rm -r -q --cached experiments; echo /experiments/ >> .git/info/exclude   … and after: git reset -q
# DRY=1 runs it on a CPU (lc0 blas as .device/lc0-blas, the CPU's own precision, short).
set -u
export PYTHONUNBUFFERED=1
torch_libs=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))")
export LD_LIBRARY_PATH=$torch_libs:$PWD/.device/lib
N=/tmp/nets; K=.device
if [ -n "${DRY:-}" ]; then D=cpu P=auto NODES=300 dry=(--dry-run --lc0 $K/lc0-blas)
else D=cuda P=fp16 NODES=30000 dry=(--lc0 $K/lc0 --movetime 2000); fi
NETS="maia-1900 bench-se-20x256 bench-transformer-256x10"
start=$SECONDS
mkdir -p $N $OUT/compare
$K/make_test_nets --bench $N > /dev/null && cp weights/maia-1900.pb.gz $N/
echo "== 1. gpu-compare, kairos against kairos-before"
python3 scripts/gpu-compare --kairos $K/kairos --baseline $K/kairos-before "${dry[@]}" --out $OUT/compare \
  --reference $K/maia1900-reference.json --nets $N --threads 1,2 | grep -v '^$'
echo "== 2. stage timing: $((SECONDS-start)) s"
for net in $NETS; do
  for t in 1 2; do
    [ $((SECONDS-start)) -gt 500 ] && { echo "skipped: out of time"; break 2; }
    echo "== stage timing $net threads $t" >> $OUT/stage-timing.txt
    $K/kairos-stage-timing bench --weights $N/$net.pb.gz --backend-device $D --precision $P --nodes $NODES \
      --smart-pruning-factor 0 --threads $t >> $OUT/stage-timing.txt 2>&1
    echo "$net threads $t: $(grep -E "nodes .* nps$" $OUT/stage-timing.txt | tail -1)"
  done
done
echo "== 3. the captures at load: $((SECONDS-start)) s"
for net in $NETS; do
  for k in kairos-before kairos; do
    [ $((SECONDS-start)) -gt 540 ] && { echo "skipped: out of time"; break 2; }
    begun=$(date +%s.%N)
    $K/$k benchmark --weights $N/$net.pb.gz --backend-device $D --precision $P --nodes 1 --num-positions 1 \
      >> $OUT/load-time.txt 2>&1
    echo "$net $k: $(python3 -c "print(round($(date +%s.%N) - $begun, 2))") s for benchmark --nodes 1" | tee -a $OUT/load-time.txt
  done
done
echo "all: $((SECONDS-start)) s"
