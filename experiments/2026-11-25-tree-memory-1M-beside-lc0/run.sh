#!/usr/bin/env bash
# #12's memory target as the issue states it: resident memory after one `go nodes 1000000` from the start position
# (SmartPruningFactor 0, all else at defaults), divided by the nodes, for lc0 and two Kairos builds in one sitting;
# uci_nps.py (of 2026-11-25-throughput-beside-lc0) also prints the growth over the search divided by the nodes.
# LC0 is an lc0 built with blas, BEFORE (optional) an older Kairos build to compare with, KAIROS the build to
# measure (default: this checkout's release build). results.txt holds the committed run.
set -euo pipefail
cd "$(dirname "$0")"
root=../..
nps=../2026-11-25-throughput-beside-lc0/uci_nps.py
lc0="${LC0:?set LC0 to an lc0 binary built with blas}"
before="${BEFORE:-}"
kairos="${KAIROS:-$root/target/release/kairos}"
nodes="${NODES:-1000000}"
echo "# $(date -u +%FT%TZ)  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)  commit $(git rev-parse --short HEAD)"
echo "lc0 (blas, defaults):"
"$nps" --movetime 0 --memory-nodes "$nodes" "$lc0" --weights="$root/weights/maia-1900.pb.gz" --backend=blas -- SmartPruningFactor=0 | tail -n 1
if [ -n "$before" ]; then
  echo "kairos before ($before):"
  "$nps" --movetime 0 --memory-nodes "$nodes" "$before" -- SmartPruningFactor=0 | tail -n 1
fi
echo "kairos ($kairos):"
"$nps" --movetime 0 --memory-nodes "$nodes" "$kairos" -- SmartPruningFactor=0 | tail -n 1
