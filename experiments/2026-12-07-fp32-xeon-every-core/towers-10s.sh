#!/usr/bin/env bash
# Longer searches on the two random-weight SE towers (made by make_test_nets --bench into NETS): Kairos's defaults
# against lc0 onednn (lc0's best backend for towers), the 10 bench positions, `go movetime 10000` each, no smart
# pruning. lc0's oneDNN builds its primitives at each new batch size, so 2.5-second searches understate it.
# usage: LC0_ONEDNN=…/build/onednn/lc0 KAIROS=target/release/kairos experiments/2026-12-07-fp32-xeon-every-core/towers-10s.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kairos=$(cd "$root" && realpath "${KAIROS:-target/release/kairos}")
nets=${NETS:-/tmp/kairos-bench-nets}
uci_nps=$root/experiments/2026-11-25-throughput-beside-lc0/uci_nps.py
for net in bench-se-10x128 bench-se-20x256; do
  w=$nets/$net.pb.gz
  echo "$net kairos $("$uci_nps" --movetime 10000 "$kairos" --weights="$w" -- SmartPruningFactor=0 | tail -n 1)"
  echo "$net lc0-onednn $("$uci_nps" --movetime 10000 "$LC0_ONEDNN" --weights="$w" --backend=onednn \
    -- SmartPruningFactor=0 2>/dev/null | tail -n 1)"
done
