#!/usr/bin/env bash
# Longer searches on the two towers: Kairos defaults against lc0 onednn (lc0's best backend for towers), 10 s each.
set -euo pipefail
cd /work/main/experiments/2026-11-26-transformer-throughput
uci_nps=../2026-11-25-throughput-beside-lc0/uci_nps.py
for net in bench-se-10x128 bench-se-20x256; do
  w=/tmp/kairos-bench-nets/$net.pb.gz
  echo "$net kairos $("$uci_nps" --movetime 10000 /work/main/target/release/kairos --weights="$w" -- SmartPruningFactor=0 | tail -n 1)"
  echo "$net lc0-onednn $("$uci_nps" --movetime 10000 /work/lc0/build/onednn/lc0 --weights="$w" --backend=onednn -- SmartPruningFactor=0 2>/dev/null | tail -n 1)"
done
