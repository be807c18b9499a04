#!/usr/bin/env bash
# The H200 run of 2026-12-04, one command of under 10 minutes (#33 items 3–5): the host work a position, cut by
# 56 % on 2026-12-02 (callgrind) and the policy rows copied out in fp16 on 2026-12-03, measured on a GPU:
#  1. scripts/gpu-compare --threads 1,2 with .device/kairos (HEAD's code) against lc0 cuda-fp16 (run13's
#     ratios on an H200: 0.26–0.48× lc0's evaluations/s on Maia, 0.40–0.66× its search NPS);
#  2. backendbench of .device/kairos against .device/kairos-before (b2df648, before both cuts) on Maia-1900 and the
#     20×256 SE net, fp16, two rounds in opposite orders (evaluations/s: steadier than search NPS between runs).
# Carried: .device/ (kairos, kairos-before, lc0, make_test_nets, maia1900-reference.json, lib/) and weights/;
# experiments/ is taken out of the index for the call (the tracked tree is over the 64 MiB that may be copied to the GPU host):
#   git rm -r -q --cached experiments; echo /experiments/ >> .git/info/exclude   … and after: git reset -q
# DRY=1 runs it on a CPU (lc0 blas as .device/lc0-blas for cuda, the CPU's own precision for fp16, short).
set -u
export PYTHONUNBUFFERED=1
torch_libs=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))")
export LD_LIBRARY_PATH=$torch_libs:$PWD/.device/lib
N=/tmp/nets; K=.device
if [ -n "${DRY:-}" ]; then D=cpu P=auto MB=16 dry=(--dry-run --lc0 $K/lc0-blas)
else D=cuda P=fp16 MB=1024 dry=(--lc0 $K/lc0); fi
start=$SECONDS
mkdir -p $N $OUT/compare
$K/make_test_nets --bench $N > /dev/null && cp weights/maia-1900.pb.gz $N/
echo "== 1. gpu-compare"
python3 scripts/gpu-compare --kairos $K/kairos "${dry[@]}" --out $OUT/compare --reference $K/maia1900-reference.json \
  --nets $N --threads 1,2 | grep -v '^$'
echo "== 2. backendbench, kairos (HEAD) against kairos-before (b2df648): $((SECONDS-start)) s"
for round in 1 2; do
  if [ $round = 1 ]; then order="kairos-before kairos"; else order="kairos kairos-before"; fi
  for net in maia-1900 bench-se-20x256; do
    for k in $order; do
      [ $((SECONDS-start)) -gt 430 ] && { echo "skipped: out of time"; break 3; }
      echo "== round $round $k $net" >> $OUT/backendbench-ab.txt
      $K/$k backendbench --weights $N/$net.pb.gz --device $D --precision $P --batches 20 --max-batch-size $MB \
        >> $OUT/backendbench-ab.txt 2>&1
      echo "round $round $net $k: $(awk -F, '$1 ~ /^ *[0-9]+$/ {printf "%d:%.0f ", $1, $7}' \
        <(sed -n '/== round '$round' '$k' '$net'$/,/^== /p' $OUT/backendbench-ab.txt))"
    done
  done
done
echo "all: $((SECONDS-start)) s"
