#!/usr/bin/env bash
# #33 item 2: search NPS on this machine's cores, Kairos's ways of using two cores against lc0's best CPU backend,
# in one sitting: lc0's benchmark positions (the first POSITIONS), MOVETIME ms each, no smart pruning (neither
# benchmark has it), Maia-1900. Rounds alternate the configurations so that drift hits them alike. threads=0 is
# Kairos's UCI default (the backend's suggestion: 1, or one per device with a device list); lc0's benchmark
# runs its default 2 threads.
# usage: LC0_BLAS=…/build/blas/lc0 LC0_ONEDNN=…/build/onednn/lc0 KAIROS=target/release/kairos \
#        experiments/2026-11-27-every-core/run.sh > results.txt
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kairos=$(cd "$root" && realpath "${KAIROS:-target/release/kairos}")
weights="$root/weights/maia-1900.pb.gz"
positions=${POSITIONS:-4}
movetime=${MOVETIME:-5000}
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores); $("$kairos" --version)"
# A benchmark's NPS and the cores it kept busy on average (CPU time over wall time, start-up included).
nps() { awk '/^Nodes\/second/ {nps = $3} /^cores / {cores = ($3 + $4) / $2} END {printf "%s nps, %.2f cores busy\n", nps, cores}'; }
busy=(/usr/bin/time -f "cores %e %U %S")
for round in $(seq "${ROUNDS:-2}"); do
  for config in "threads=0" "threads=2" "threads=2 backend-threads=0" "threads=0 backend-device=cpu,cpu"; do
    flags=()
    for word in $config; do flags+=("--$word"); done
    result=$("${busy[@]}" "$kairos" benchmark --weights "$weights" --movetime "$movetime" --num-positions "$positions" \
      --smart-pruning-factor 0 "${flags[@]}" 2>&1 | nps)
    echo "round $round kairos $config: $result"
  done
  # lc0 LABEL BINARY BACKEND [BACKEND-OPTS]
  lc0() {
    local opts=()
    if [ -n "${4:-}" ]; then opts=("--backend-opts=$4"); fi
    echo "round $round lc0 $1 (threads 2): $(OPENBLAS_CORETYPE=SkylakeX "${busy[@]}" "$2" benchmark --weights="$weights" \
      --backend="$3" "${opts[@]}" --movetime="$movetime" --num-positions="$positions" 2>&1 | nps)"
  }
  if [ -n "${LC0_BLAS:-}" ]; then lc0 blas "$LC0_BLAS" blas; fi
  if [ -n "${LC0_ONEDNN:-}" ]; then lc0 onednn "$LC0_ONEDNN" onednn; fi
done
