#!/usr/bin/env bash
# Prepared on 2026-11-28 for the H200, one command of under 10 minutes (#33 items 2–5):
#  1. scripts/gpu-compare --threads 1,2,4 with .device/kairos (318a580: the pick's scan for the best child, 23 %
#     fewer instructions a node) against lc0 cuda-fp16, the first GPU run since run 12 (2026-11-27);
#  2. search NPS of .device/kairos against .device/kairos-before (7a21187, the scan before it), alternating,
#     at Threads 1 and 2 on the three nets (run 12: the tree lock busy 70 % of the time at 2 threads on Maia);
#  3. the 16-core host CPU: Kairos's default Threads=0 (a search thread and a backend a core) with
#     BackendDevice=cpu against lc0 onednn's defaults, Maia-1900.
# DRY=1 runs it on a CPU (lc0 blas for cuda, bf16 for fp16, short).
set -u
export PYTHONUNBUFFERED=1
torch_libs=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))")
export LD_LIBRARY_PATH=$torch_libs:$PWD/.device/lib
# lc0 onednn's libdnnl (40 MB) travels compressed, to keep the carried kit under the 64 MiB that may be copied to the GPU host.
[ -e .device/lib/libdnnl.so.2 ] || python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.device/libdnnl.so.2.xz'), open('.device/lib/libdnnl.so.2', 'wb'))"
N=/tmp/nets; K=.device
if [ -n "${DRY:-}" ]; then D=cpu P=auto MT=300 LB=blas LC0=$K/lc0-blas dry=(--dry-run --lc0 $K/lc0-blas)
else D=cuda P=fp16 MT=2000 LB=cuda-fp16 LC0=$K/lc0 dry=(--lc0 $K/lc0); fi
start=$SECONDS
mkdir -p $N $OUT/compare
$K/make_test_nets --bench $N > /dev/null && cp weights/maia-1900.pb.gz $N/
echo "== 1. gpu-compare"
python3 scripts/gpu-compare --kairos $K/kairos "${dry[@]}" --out $OUT/compare --reference $K/maia1900-reference.json \
  --nets $N --threads 1,2,4 | grep -v '^$'
echo "== 2. the pick's scan (.device/kairos) against before (.device/kairos-before): $((SECONDS-start)) s"
for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do
  for t in 1 2; do
    for k in kairos-before kairos; do
      [ $((SECONDS-start)) -gt 470 ] && { echo "skipped: out of time"; break 3; }
      echo "== $k $net threads $t" >> $OUT/benchmark.txt
      $K/$k benchmark --weights $N/$net.pb.gz --backend-device $D --precision $P --movetime $MT \
        --num-positions 2 --smart-pruning-factor 0 --threads $t >> $OUT/benchmark.txt 2>&1
      echo "$net t$t $k $(grep 'Nodes/second' $OUT/benchmark.txt | tail -1)"
    done
  done
done
echo "== 3. the host CPU, Maia-1900, defaults: $((SECONDS-start)) s"
nps() { awk '/^Nodes\/second/ {nps = $3} /^cores / {cores = ($3 + $4) / $2} END {printf "%s nps, %.2f cores busy\n", nps, cores}'; }
busy=(/usr/bin/time -f "cores %e %U %S")
r=$("${busy[@]}" $K/kairos benchmark --weights $N/maia-1900.pb.gz --backend-device cpu --threads 0 --movetime $((MT*2)) \
  --num-positions 4 --smart-pruning-factor 0 2>&1 | tee -a $OUT/cpu-kairos-threads-0.txt | nps)
echo "$(nproc) cores, kairos Threads=0: $r"
r=$("${busy[@]}" $K/lc0-onednn benchmark --weights=$N/maia-1900.pb.gz --backend=onednn --movetime=$((MT*2)) \
  --num-positions=4 2>&1 | tee -a $OUT/cpu-lc0-onednn.txt | nps)
echo "$(nproc) cores, lc0 onednn defaults: $r"
echo "all: $((SECONDS-start)) s"
