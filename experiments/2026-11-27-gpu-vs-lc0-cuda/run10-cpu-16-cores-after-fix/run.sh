#!/usr/bin/env bash
# The fourth run on the H200 machine (2026-11-27), CPU only, after 4b555c4 (a lone BackendDevice=cpu opens one backend a
# search thread): Kairos with BackendDevice=cpu (`benchmark`'s Threads default is lc0's 2, so two backends) against
# lc0 onednn's defaults, on all cores and on one, lc0's benchmark positions, MOVETIME ms each, Maia-1900.
set -u
export LD_LIBRARY_PATH=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))"):$PWD/.device/lib
K=.device/kairos; L=.device/lc0-onednn; W=weights/maia-1900.pb.gz; MT=${MOVETIME:-5000}; N=$(nproc)
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($N cores); $($K --version)"
nps() { awk '/^Nodes\/second/ {nps = $3} /^cores / {cores = ($3 + $4) / $2} END {printf "%s nps, %.2f cores busy\n", nps, cores}'; }
busy=(/usr/bin/time -f "cores %e %U %S")
for cores in "0-$((N-1))" "0"; do
  r=$(taskset -c "$cores" "${busy[@]}" $K benchmark --weights $W --backend-device cpu --movetime $MT \
    --num-positions 4 --smart-pruning-factor 0 2>&1 | tee -a $OUT/kairos-defaults.txt | nps)
  echo "cores $cores kairos defaults: $r"
  r=$(taskset -c "$cores" "${busy[@]}" $L benchmark --weights=$W --backend=onednn --movetime=$MT \
    --num-positions=4 2>&1 | tee -a $OUT/lc0-onednn-defaults.txt | nps)
  echo "cores $cores lc0 onednn defaults: $r"
done
