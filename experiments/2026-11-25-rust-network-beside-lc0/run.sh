#!/usr/bin/env bash
# #12 with the network in plain Rust (RustBatchLimit), beside lc0 in one sitting: backendbench at batch sizes
# 1-256 through the default path and through libtorch alone (RustBatchLimit=0), search nps over the 10 bench
# positions (3 s each, smart pruning off) through UCI, kairos bench at Threads=1 and 2, and the same with both
# engines restricted to AVX2 code (ONEDNN_MAX_CPU_ISA, ATEN_CPU_CAPABILITY, MKL_ENABLE_INSTRUCTIONS and
# KAIROS_MAX_CPU_ISA for Kairos, OPENBLAS_CORETYPE=Haswell for lc0). LC0 is an lc0 binary built with blas;
# KAIROS defaults to this checkout's release build. results.txt holds the committed run.
set -euo pipefail
cd "$(dirname "$0")"
root=../..
kairos="${KAIROS:-$root/target/release/kairos}"
lc0="${LC0:?set LC0 to an lc0 binary built with blas}"
weights="$root/weights/maia-1900.pb.gz"
nps=../2026-11-25-throughput-beside-lc0/uci_nps.py
sizes=(1 2 4 8 16 32 64 256)

lc0_bench() {
  for batch in 1 8 32 256; do
    "$lc0" backendbench --weights="$weights" --backend=blas --batches=50 --start-batch-size=$batch \
      --max-batch-size=$batch 2>&1 | tail -n 1
  done
}
kairos_bench() {  # precision, RustBatchLimit
  for batch in "${sizes[@]}"; do
    "$kairos" backendbench --device cpu --precision "$1" --rust-batch-limit "$2" --batches 50 \
      --start-batch-size $batch --max-batch-size $batch 2>&1 | tail -n 1
  done
}

echo "# $(date -u +%FT%TZ)  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)  commit $(git rev-parse --short HEAD)"
echo "## backendbench: size, mean nps, mean ms, ..."
echo "lc0 blas:"; lc0_bench
for precision in fp32 bf16; do
  echo "kairos $precision, RustBatchLimit=-1 (default):"; kairos_bench $precision -1
  echo "kairos $precision, RustBatchLimit=0 (libtorch only):"; kairos_bench $precision 0
done
echo "## search, 10 bench positions, movetime 3000"
echo "lc0 (blas, defaults):"
"$nps" "$lc0" --weights="$weights" --backend=blas -- SmartPruningFactor=0 | tail -n 1
echo "kairos defaults (Precision=auto: bf16 here):"
"$nps" "$kairos" -- SmartPruningFactor=0 | tail -n 1
echo "kairos defaults, RustBatchLimit=0 (libtorch only):"
"$nps" "$kairos" -- SmartPruningFactor=0 RustBatchLimit=0 | tail -n 1
echo "kairos Precision=fp32:"
"$nps" "$kairos" -- SmartPruningFactor=0 Precision=fp32 | tail -n 1
echo "kairos Precision=fp32 Threads=2:"
"$nps" "$kairos" -- SmartPruningFactor=0 Precision=fp32 Threads=2 | tail -n 1
echo "## kairos bench (10 positions, 1,000 nodes each)"
for precision in bf16 fp32; do
  for threads in 1 2; do
    echo "bench --precision=$precision --threads=$threads: $("$kairos" bench --precision=$precision --threads=$threads 2>&1 | tail -n 1)"
  done
done
echo "## AVX2 code only"
(
  export ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 KAIROS_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell
  echo "lc0 blas:"; lc0_bench
  echo "kairos fp32, RustBatchLimit=-1 (default):"; kairos_bench fp32 -1
  echo "kairos fp32, RustBatchLimit=0 (libtorch only):"; kairos_bench fp32 0
  echo "lc0 search (blas, defaults):"
  "$nps" "$lc0" --weights="$weights" --backend=blas -- SmartPruningFactor=0 | tail -n 1
  echo "kairos search, Precision=fp32 (what auto picks without native bf16):"
  "$nps" "$kairos" -- SmartPruningFactor=0 Precision=fp32 | tail -n 1
)
