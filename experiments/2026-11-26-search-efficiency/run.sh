#!/usr/bin/env bash
# #12's efficiency target, measured in alternating rounds because this VM's speed wanders by ±10–20 % between
# runs: in each round, for fp32 and bf16, the network alone (`backendbench` at the search's minibatch, 32), the
# search on `kairos bench`'s 1,000-node trees, and the search through UCI as #12 measured it (the 10 bench
# positions, `go movetime 3000`, SmartPruningFactor 0); lc0's UCI search beside it when LC0 is set, and an
# older Kairos binary's (OLD) at its defaults and in fp32, for before-and-after ratios in the same sitting.
# STAGE_KAIROS (a `--features stage-timing` build) adds one stage table per precision after the rounds.
# Prints lines "round R KEY VALUE" that summarize.py turns into efficiencies; results.txt holds the committed run.
set -euo pipefail
cd "$(dirname "$0")"
root=../..
kairos="${KAIROS:-$root/target/release/kairos}"
rounds="${ROUNDS:-6}"
weights="$root/weights/maia-1900.pb.gz"
uci_nps=../2026-11-25-throughput-beside-lc0/uci_nps.py

echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) $(grep -o -m1 -w amx_bf16 /proc/cpuinfo || true) commit $(git rev-parse --short HEAD), kairos $kairos"
for round in $(seq 1 "$rounds"); do
  # Alternate the order of the precisions so neither always runs first after lc0.
  precisions="fp32 bf16"
  [ $((round % 2)) -eq 0 ] && precisions="bf16 fp32"
  for precision in $precisions; do
    rate=$("$kairos" backendbench --device cpu --precision "$precision" --batches 50 --start-batch-size 32 \
      --max-batch-size 32 2>&1 | tail -n 1 | cut -d, -f2 | tr -d ' ')
    echo "round $round backendbench32-$precision $rate"
    nps=$("$kairos" bench --threads=1 --precision="$precision" 2>&1 | tail -n 1 | awk '{print $3}')
    echo "round $round bench-$precision $nps"
    nps=$("$uci_nps" "$kairos" -- SmartPruningFactor=0 Precision="$precision" | tail -n 1 | awk '{print $(NF-1)}')
    echo "round $round uci-$precision $nps"
  done
  if [ -n "${LC0:-}" ]; then
    nps=$("$uci_nps" "$LC0" --weights="$weights" --backend=blas -- SmartPruningFactor=0 2>/dev/null | tail -n 1 | awk '{print $(NF-1)}')
    echo "round $round uci-lc0 $nps"
  fi
  if [ -n "${OLD:-}" ]; then
    for precision in fp32 bf16; do
      rate=$("$OLD" backendbench --device cpu --precision "$precision" --batches 50 --start-batch-size 32 \
        --max-batch-size 32 2>&1 | tail -n 1 | cut -d, -f2 | tr -d ' ')
      echo "round $round old-backendbench32-$precision $rate"
      nps=$("$uci_nps" "$OLD" -- SmartPruningFactor=0 Precision="$precision" | tail -n 1 | awk '{print $(NF-1)}')
      echo "round $round uci-old-$precision $nps"
    done
  fi
done
if [ -n "${STAGE_KAIROS:-}" ]; then
  for precision in fp32 bf16; do
    echo "## stage timing, kairos bench --threads=1 --precision=$precision"
    "$STAGE_KAIROS" bench --threads=1 --precision="$precision" 2>&1 | tail -n 13
  done
fi
