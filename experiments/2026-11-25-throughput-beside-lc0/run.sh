#!/usr/bin/env bash
# #12's targets, lc0 and Kairos in one sitting on the same machine and network (Maia-1900): the network's
# evaluations per second at batch 1, 32 and 256; search nps over the 10 `kairos bench` positions (3 s each,
# smart pruning off) through UCI; and resident memory per node after one `go nodes 100000`. Prints everything
# to stdout (results.txt holds the committed run). LC0 is an lc0 binary built with its blas backend
# (BENCHMARKS.md says how); KAIROS defaults to this checkout's release build.
set -euo pipefail
cd "$(dirname "$0")"
root=../..
kairos="${KAIROS:-$root/target/release/kairos}"
lc0="${LC0:?set LC0 to an lc0 binary built with blas}"
weights="$root/weights/maia-1900.pb.gz"

echo "# $(date -u +%FT%TZ)  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)  commit $(git rev-parse --short HEAD)"
for batch in 1 32 256; do
  echo "## backendbench, batch $batch"
  "$lc0" backendbench --weights="$weights" --backend=blas --batches=20 --start-batch-size=$batch \
    --max-batch-size=$batch 2>&1 | tail -n 3
  for precision in fp32 bf16; do
    echo "kairos $precision:"
    "$kairos" backendbench --device cpu --precision $precision --batches 20 --start-batch-size $batch \
      --max-batch-size $batch 2>&1 | tail -n 2
  done
done

echo "## search, 10 bench positions, movetime 3000, then go nodes 100000 from the start position"
echo "lc0 (blas, defaults):"
./uci_nps.py --memory-nodes 100000 "$lc0" --weights="$weights" --backend=blas -- SmartPruningFactor=0 | tail -n 2
echo "kairos defaults (Precision=auto, BackendThreads=1):"
./uci_nps.py --memory-nodes 100000 "$kairos" -- SmartPruningFactor=0 | tail -n 2
echo "kairos Precision=fp32:"
./uci_nps.py "$kairos" -- SmartPruningFactor=0 Precision=fp32 | tail -n 1
echo "kairos BackendThreads=0 (one per core):"
./uci_nps.py "$kairos" -- SmartPruningFactor=0 BackendThreads=0 | tail -n 1
echo "lc0 with both cores for blas (BackendOptions=threads=2, the blas backend's option in this lc0):"
./uci_nps.py "$lc0" --weights="$weights" --backend=blas -- SmartPruningFactor=0 BackendOptions=threads=2 | tail -n 1
