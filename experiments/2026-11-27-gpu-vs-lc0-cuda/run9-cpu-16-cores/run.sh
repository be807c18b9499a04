#!/usr/bin/env bash
# The third run on the H200 machine (2026-11-27), CPU only: #33 item 2 on 16 cores. (1) Kairos with BackendDevice=cpu
# (`benchmark`'s Threads default is lc0's 2; BackendDevice=cpu then opened one backend, the bug fixed in 4b555c4)
# against lc0 onednn's defaults on all cores and on one (taskset), lc0's benchmark positions, MOVETIME ms each,
# Maia-1900; (2) both engines' random backends (MinibatchSize 256, lc0 --task-workers=0) at 1, 4 and 16 search
# threads: the tree's own scaling. Kit: .device with kairos, lc0-onednn and libdnnl.so.2 (stripped, to fit 64 MiB).
set -u
export LD_LIBRARY_PATH=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))"):$PWD/.device/lib
K=.device/kairos; L=.device/lc0-onednn; W=weights/maia-1900.pb.gz; MT=${MOVETIME:-5000}; N=$(nproc)
ALL=${ALL:-0-$((N-1))}; ONE=${ONE:-0}; RT=${RANDOMTIME:-2000}
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($N cores); $($K --version)"
grep -o -m1 'amx_bf16\|avx512_bf16' /proc/cpuinfo | head -2
nps() { awk '/^Nodes\/second/ {nps = $3} /^cores / {cores = ($3 + $4) / $2} END {printf "%s nps, %.2f cores busy\n", nps, cores}'; }
busy=(/usr/bin/time -f "cores %e %U %S")
for cores in "$ALL" "$ONE"; do
  r=$(taskset -c "$cores" "${busy[@]}" $K benchmark --weights $W --backend-device cpu --movetime $MT \
    --num-positions 4 --smart-pruning-factor 0 2>&1 | tee -a $OUT/kairos-defaults.txt | nps)
  echo "cores $cores kairos defaults: $r"
  r=$(taskset -c "$cores" "${busy[@]}" $L benchmark --weights=$W --backend=onednn --movetime=$MT \
    --num-positions=4 2>&1 | tee -a $OUT/lc0-onednn-defaults.txt | nps)
  echo "cores $cores lc0 onednn defaults: $r"
done
for t in 1 4 $N; do
  r=$("${busy[@]}" $K benchmark --backend random --threads $t --minibatch-size 256 --movetime $RT --num-positions 6 \
    --smart-pruning-factor 0 2>&1 | tee -a $OUT/kairos-random.txt | nps)
  echo "random threads $t kairos: $r"
  r=$("${busy[@]}" $L benchmark --backend=random --threads=$t --task-workers=0 --minibatch-size=256 --movetime=$RT \
    --num-positions=6 2>&1 | tee -a $OUT/lc0-random.txt | nps)
  echo "random threads $t lc0: $r"
done
