#!/usr/bin/env bash
# 2026-11-27: results.txt is Kairos 23f4b4f with KAIROS_BEFORE=85a1e84; first-run.txt an earlier build of the
# same change (before the idle threshold counted per backend, which changes nothing for one backend).
# #33: the search's threads with a batch latency and no network. Both engines' random backends (priors and values
# from the position's hash, computed outside the tree lock) with each batch waiting DELAY ms without using a core,
# as a GPU's batch does (lc0 --backend-opts=delay=N, Kairos TestBackendDelayMs), at 1, 2 and 4 search threads;
# MinibatchSize 256, 6 benchmark positions x 2 s, no smart pruning in Kairos (lc0's benchmark has none), lc0 with
# --task-workers=0 (its spinning task workers starve when cores are short). Rounds alternate the engines.
# Usage: LC0=…/build/onednn/lc0 KAIROS=target/release/kairos [KAIROS_BEFORE=an older build] DELAYS="0 1" \
#   THREADS="1 2 4" ROUNDS=2 run.sh
set -euo pipefail
lc0="${LC0:?path of lc0}"
kairos="${KAIROS:?path of kairos}"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for delay in ${DELAYS:-0 1}; do
    for threads in ${THREADS:-1 2 4}; do
      b=""
      if [ -n "${KAIROS_BEFORE:-}" ]; then
        b=$(/usr/bin/time -f "%e %U %S" "$KAIROS_BEFORE" benchmark --backend random --test-backend-delay-ms "$delay" \
              --threads "$threads" --minibatch-size 256 --movetime 2000 --num-positions 6 \
              --smart-pruning-factor 0 2>/tmp/before-time.txt | awk '/Nodes\/second/ {print $3}')
        b=", kairos before $b NPS ($(awk 'END {printf "%.2f", ($2 + $3) / $1}' /tmp/before-time.txt) cores busy)"
      fi
      k=$(/usr/bin/time -f "%e %U %S" "$kairos" benchmark --backend random --test-backend-delay-ms "$delay" \
            --threads "$threads" --minibatch-size 256 --movetime 2000 --num-positions 6 \
            --smart-pruning-factor 0 2>/tmp/kairos-time.txt | awk '/Nodes\/second/ {print $3}')
      kb=$(awk 'END {printf "%.2f", ($2 + $3) / $1}' /tmp/kairos-time.txt)
      l=$(/usr/bin/time -f "%e %U %S" "$lc0" benchmark --backend=random --backend-opts=delay="$delay" \
            --threads="$threads" --task-workers=0 --minibatch-size=256 --movetime=2000 --num-positions=6 \
            2>/tmp/lc0-time.txt | awk '/Nodes\/second/ {print $3}')
      lb=$(awk 'END {printf "%.2f", ($2 + $3) / $1}' /tmp/lc0-time.txt)
      echo "round $round delay ${delay}ms threads $threads: kairos $k NPS ($kb cores busy), lc0 $l NPS ($lb cores busy)$b"
    done
  done
done
