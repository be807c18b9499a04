#!/usr/bin/env bash
# #33 item 2 on a second native-bf16 CPU, an AMD EPYC (Zen 5: AVX512-BF16 without AMX): Kairos's defaults against
# lc0's onednn and blas defaults on both cores, and all three restricted to one core (taskset), in one sitting:
# lc0's benchmark positions (the first POSITIONS), MOVETIME ms each, no smart pruning (neither benchmark has it),
# Maia-1900, rounds alternating the configurations. OpenBLAS 0.3.21 finds this CPU a "Cooperlake" (its AVX-512
# BF16 kernels), as fast as SkylakeX here, so lc0 blas runs without OPENBLAS_CORETYPE; on a CPU that OpenBLAS
# misreads, set it in the environment (SkylakeX on the AMX Xeon: BENCHMARKS.md, "The AMX Xeon again").
# usage: LC0_ONEDNN=…/build/onednn/lc0 LC0_BLAS=…/build/blas/lc0 KAIROS=target/release/kairos \
#        experiments/2026-11-28-zen5-every-core/run.sh > results.txt
# KAIROS_OPTIONS adds flags to Kairos's benchmark (e.g. `--precision fp32`, with KAIROS_MAX_CPU_ISA=AVX2
# ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell for an AVX2-only CPU emulated).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kairos=$(cd "$root" && realpath "${KAIROS:-target/release/kairos}")
weights="$root/weights/maia-1900.pb.gz"
positions=${POSITIONS:-4}
movetime=${MOVETIME:-5000}
flags=$(grep -m1 '^flags' /proc/cpuinfo | grep -o -w -E 'avx512_bf16|amx_bf16' | tr '\n' ' ' || true)
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores; $flags); $("$kairos" --version)"
echo "# KAIROS_OPTIONS='${KAIROS_OPTIONS:-}' KAIROS_MAX_CPU_ISA='${KAIROS_MAX_CPU_ISA:-}'" \
  "ONEDNN_MAX_CPU_ISA='${ONEDNN_MAX_CPU_ISA:-}' OPENBLAS_CORETYPE='${OPENBLAS_CORETYPE:-}'"
# A benchmark's NPS and the cores it kept busy on average (CPU time over wall time, start-up included).
nps() { awk '/^Nodes\/second/ {nps = $3} /^cores / {cores = ($3 + $4) / $2} END {printf "%s nps, %.2f cores busy\n", nps, cores}'; }
busy=(/usr/bin/time -f "cores %e %U %S")
for round in $(seq "${ROUNDS:-2}"); do
  for cores in "0-1" "1"; do
    pin=(taskset -c "$cores")
    result=$("${pin[@]}" "${busy[@]}" "$kairos" benchmark --weights "$weights" --movetime "$movetime" \
      --num-positions "$positions" --smart-pruning-factor 0 ${KAIROS_OPTIONS:-} 2>&1 | nps)
    echo "round $round cores $cores kairos defaults: $result"
    for backend in onednn blas; do
      binary=LC0_${backend^^}
      result=$("${pin[@]}" "${busy[@]}" "${!binary}" benchmark --weights="$weights" --backend="$backend" \
        --movetime="$movetime" --num-positions="$positions" 2>&1 | nps)
      echo "round $round cores $cores lc0 $backend defaults: $result"
    done
  done
done
