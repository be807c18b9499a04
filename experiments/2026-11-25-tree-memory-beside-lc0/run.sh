#!/usr/bin/env bash
# #12's memory per node and search speed for lc0 and two Kairos builds in one sitting: the 10 bench positions at
# go movetime 3000 (SmartPruningFactor 0), then the growth of resident memory over one go nodes 100000 from the
# start position, divided by the nodes (uci_nps.py of 2026-11-25-throughput-beside-lc0). LC0 is an lc0 built
# with blas, BEFORE a Kairos build with the old tree (children inside the edges, e.g. 4d6c6f2), KAIROS the new
# one (default: this checkout's release build). Prints everything; results.txt holds the committed run.
set -euo pipefail
cd "$(dirname "$0")"
root=../..
nps=../2026-11-25-throughput-beside-lc0/uci_nps.py
lc0="${LC0:?set LC0 to an lc0 binary built with blas}"
before="${BEFORE:?set BEFORE to a Kairos binary with the old tree}"
kairos="${KAIROS:-$root/target/release/kairos}"
echo "# $(date -u +%FT%TZ)  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)  commit $(git rev-parse --short HEAD)"
echo "lc0 (blas, defaults):"
"$nps" --memory-nodes 100000 "$lc0" --weights="$root/weights/maia-1900.pb.gz" --backend=blas -- SmartPruningFactor=0 | tail -n 2
echo "kairos before (defaults):"
"$nps" --memory-nodes 100000 "$before" -- SmartPruningFactor=0 | tail -n 2
echo "kairos after (defaults):"
"$nps" --memory-nodes 100000 "$kairos" -- SmartPruningFactor=0 | tail -n 2
