#!/usr/bin/env bash
# Resident memory of a loaded network (../2026-11-26-transformer-throughput/loaded_rss.py: `isready`, `go nodes 1`,
# then VmRSS, minus the same engine's with the 4-filter test net), each engine at its defaults, for every binary
# named in KAIROS_BUILDS ("NAME=PATH ..."), and lc0 blas (LC0_BLAS) beside them. Prints "round R NET NAME KB".
set -euo pipefail
cd "$(dirname "$0")"
root=../..
nets="${NETS:-/tmp/kairos-bench-nets}"
small="$root/reference/nets/se-classical-value-classical-policy.pb.gz"
rss=../2026-11-26-transformer-throughput/loaded_rss.py
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) $KAIROS_BUILDS lc0 $LC0_BLAS"
net_rss() { echo $(( $("$rss" "$@" --weights="$w" | awk '{print $2}') - $("$rss" "$@" --weights="$small" | awk '{print $2}') )); }
for round in $(seq 1 "${ROUNDS:-2}"); do
  for net in maia-1900 bench-se-10x128 bench-se-20x256 bench-transformer-256x10; do
    case $net in maia-1900) w=$(realpath "$root/weights/maia-1900.pb.gz");; *) w="$nets/$net.pb.gz";; esac
    for build in $KAIROS_BUILDS; do
      echo "round $round $net ${build%%=*} $(net_rss "${build#*=}")"
    done
    echo "round $round $net lc0-blas $(OPENBLAS_CORETYPE=SkylakeX net_rss "$LC0_BLAS" --backend=blas)"
  done
done
