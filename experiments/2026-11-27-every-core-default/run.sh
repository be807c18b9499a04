#!/usr/bin/env bash
# #33 item 2 with a backend per core as the CPU default: Kairos's defaults against lc0 onednn's on both cores, and
# both restricted to one core (taskset), in one sitting: lc0's benchmark positions (the first POSITIONS), MOVETIME ms
# each, no smart pruning (neither benchmark has it), Maia-1900, rounds alternating the configurations. Kairos's
# Threads=0 is one search thread and one CPU backend a core it may use, so under taskset it is one of each; lc0's
# benchmark runs its default 2 search threads, and its oneDNN takes the cores it may use.
# usage: LC0_ONEDNN=…/build/onednn/lc0 KAIROS=target/release/kairos \
#        experiments/2026-11-27-every-core-default/run.sh > results.txt
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
  for cores in "0-1" "1"; do
    pin=(taskset -c "$cores")
    result=$("${pin[@]}" "${busy[@]}" "$kairos" benchmark --weights "$weights" --movetime "$movetime" \
      --num-positions "$positions" --smart-pruning-factor 0 2>&1 | nps)
    echo "round $round cores $cores kairos defaults: $result"
    result=$("${pin[@]}" "${busy[@]}" "$LC0_ONEDNN" benchmark --weights="$weights" --backend=onednn \
      --movetime="$movetime" --num-positions="$positions" 2>&1 | nps)
    echo "round $round cores $cores lc0 onednn defaults: $result"
  done
done
