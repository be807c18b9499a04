#!/usr/bin/env bash
# #12 with Winograd F(4×4, 3×3) in the network in plain Rust (F(2×2) below 4 positions), beside lc0 and the build
# before it (F(2×2) only) in one sitting: backendbench, search nps over the 10 bench positions (3 s each, smart
# pruning off) through UCI, kairos bench, and the same with every engine restricted to AVX2 code
# (ONEDNN_MAX_CPU_ISA, ATEN_CPU_CAPABILITY, MKL_ENABLE_INSTRUCTIONS and KAIROS_MAX_CPU_ISA for Kairos,
# OPENBLAS_CORETYPE=Haswell for lc0). LC0 is an lc0 binary built with blas, OLD the build before (722ae30), NEW
# defaults to this checkout's release build. results.txt holds the committed run.
set -euo pipefail
cd "$(dirname "$0")"
root=../..
new="${NEW:-$root/target/release/kairos}"
old="${OLD:?set OLD to the build before F(4x4) (722ae30)}"
lc0="${LC0:?set LC0 to an lc0 binary built with blas}"
weights="$root/weights/maia-1900.pb.gz"
nps=../2026-11-25-throughput-beside-lc0/uci_nps.py

lc0_bench() {
  for batch in 1 8 32 256; do
    "$lc0" backendbench --weights="$weights" --backend=blas --batches=50 --start-batch-size=$batch \
      --max-batch-size=$batch 2>&1 | tail -n 1
  done
}
kairos_bench() {  # binary, precision
  for batch in 1 2 4 8 16 32 64 256; do
    "$1" backendbench --device cpu --precision "$2" --batches 50 --start-batch-size $batch --max-batch-size $batch \
      2>&1 | tail -n 1
  done
}
search() {  # label, engine, options...
  echo "$1: $("$nps" "${@:2}" | tail -n 1)"
}

echo "# $(date -u +%FT%TZ)  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)  new $(git rev-parse --short HEAD)"
echo "## backendbench: size, mean nps, mean ms, ..."
echo "lc0 blas:"; lc0_bench
for precision in fp32 bf16; do
  for build in old new; do
    echo "kairos $build $precision:"; kairos_bench "${!build}" $precision
  done
done
echo "## search, 10 bench positions, movetime 3000"
search "lc0 (blas, defaults)" "$lc0" --weights="$weights" --backend=blas -- SmartPruningFactor=0
for build in old new; do
  search "kairos $build defaults (Precision=auto: bf16 here)" "${!build}" -- SmartPruningFactor=0
  search "kairos $build Precision=fp32" "${!build}" -- SmartPruningFactor=0 Precision=fp32
done
search "kairos new Precision=fp32 Threads=2" "$new" -- SmartPruningFactor=0 Precision=fp32 Threads=2
echo "## kairos bench (10 positions, 1,000 nodes each)"
for build in old new; do
  for precision in bf16 fp32; do
    echo "$build bench --precision=$precision: $("${!build}" bench --precision=$precision 2>&1 | tail -n 1)"
  done
done
echo "## AVX2 code only"
(
  export ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 KAIROS_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell
  echo "lc0 blas:"; lc0_bench
  for build in old new; do
    echo "kairos $build fp32:"; kairos_bench "${!build}" fp32
  done
  search "lc0 search (blas, defaults)" "$lc0" --weights="$weights" --backend=blas -- SmartPruningFactor=0
  for build in old new; do
    search "kairos $build search, Precision=fp32 (what auto picks without native bf16)" "${!build}" -- \
      SmartPruningFactor=0 Precision=fp32
  done
  search "kairos new search, Precision=fp32 Threads=2" "$new" -- SmartPruningFactor=0 Precision=fp32 Threads=2
  echo "new bench --precision=fp32: $("$new" bench --precision=fp32 2>&1 | tail -n 1)"
)
