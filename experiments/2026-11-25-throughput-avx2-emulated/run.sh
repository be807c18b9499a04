#!/usr/bin/env bash
# #12's "≥ 2× lc0 on an AVX2-only CPU in fp32", measured on a CPU with AVX-512 by restricting both engines to
# AVX2 kernels: oneDNN (ONEDNN_MAX_CPU_ISA), ATen's own vector kernels (ATEN_CPU_CAPABILITY) and MKL
# (MKL_ENABLE_INSTRUCTIONS) for Kairos, OpenBLAS's kernel choice (OPENBLAS_CORETYPE=Haswell) for lc0. Kairos runs
# Precision=fp32, what `auto` picks on a CPU without native bf16. Same measures as ../2026-11-25-throughput-beside-lc0:
# backendbench at batch 1 and 32, then search nps over the 10 bench positions (3 s each, smart pruning off) through
# UCI. LC0 is an lc0 binary built with blas; KAIROS defaults to this checkout's release build. results.txt holds
# the committed run.
set -euo pipefail
cd "$(dirname "$0")"
root=../..
kairos="${KAIROS:-$root/target/release/kairos}"
lc0="${LC0:?set LC0 to an lc0 binary built with blas}"
weights="$root/weights/maia-1900.pb.gz"
nps=../2026-11-25-throughput-beside-lc0/uci_nps.py
export ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 OPENBLAS_CORETYPE=Haswell

echo "# $(date -u +%FT%TZ)  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)  commit $(git rev-parse --short HEAD), AVX2 kernels only"
"$lc0" backendbench --weights="$weights" --backend=blas --batches=1 --max-batch-size=1 2>&1 | grep -m1 "^OpenBLAS \[" || true
ONEDNN_VERBOSE=1 "$kairos" backendbench --device cpu --precision fp32 --batches 1 --start-batch-size 32 --max-batch-size 32 2>&1 | grep -m1 "isa:" || true
for batch in 1 32; do
  echo "## backendbench, batch $batch"
  "$lc0" backendbench --weights="$weights" --backend=blas --batches=20 --start-batch-size=$batch \
    --max-batch-size=$batch 2>&1 | tail -n 1
  echo "kairos fp32:"
  "$kairos" backendbench --device cpu --precision fp32 --batches 20 --start-batch-size $batch \
    --max-batch-size $batch 2>&1 | tail -n 1
done
echo "## search, 10 bench positions, movetime 3000"
echo "lc0 (blas, defaults):"
"$nps" "$lc0" --weights="$weights" --backend=blas -- SmartPruningFactor=0 | tail -n 1
echo "kairos Precision=fp32 (otherwise defaults):"
"$nps" "$kairos" -- SmartPruningFactor=0 Precision=fp32 | tail -n 1
echo "kairos Precision=fp32 BackendThreads=0 (one per core):"
"$nps" "$kairos" -- SmartPruningFactor=0 Precision=fp32 BackendThreads=0 | tail -n 1
