#!/usr/bin/env bash
# Resumes the slowmover-1.5 legacy's match against legacy at 60+0.6 (EXPERIMENTS.md, 2026-12-02) on this
# checkout, in the background: builds binary 042a2e3 if needed (binary-at.sh), unzips the committed results and
# PGN, and plays on under run-vs-legacy.sh up to GAMES (8000 unless set). Stop it with
# `stop-at-whole-pairs.sh 60+0.6-legacy-spread-0.15-after-5-slowmover-1.5`, derive the files with
# `derive-slowmover-1.5.sh`, then gzip -fn the two files again. The match's log goes to LOG (/tmp/slowmover-1.5.log).
# The runner's own SPRT (elo0=0 elo1=10, all games) accepted H0 at game 3077 (2026-12-04), so it plays on without
# it (SPRT=off): the test that decides is the non-regression one that `sprt.py --after 272` reads.
# usage: resume-slowmover-1.5.sh
set -euo pipefail
cd "$(dirname "$0")"
root=$(git rev-parse --show-toplevel)
binary=$(./binary-at.sh 042a2e3)
dir=60+0.6-legacy-spread-0.15-after-5-slowmover-1.5
log=${LOG:-/tmp/slowmover-1.5.log}
for file in results.jsonl games.pgn; do
  [ -s "$dir/$file" ] || gunzip -k "$dir/$file.gz"
done
LD_LIBRARY_PATH="$root/.libtorch/torch/lib" GAMES=${GAMES:-8000} CONCURRENCY=2 KAIROS="$binary" TC=60+0.6 \
  NAME=legacy-spread-0.15-after-5-slowmover-1.5 DIR=$dir SPRT=off \
  MANAGER='legacy(immediate-use=0.15,spread-after=5,slowmover=1.5)' \
  setsid nohup ./run-vs-legacy.sh --each option.Precision=fp32 option.WeightsFile="$root/weights/maia-1900.pb.gz" \
  > "$log" 2>&1 &
echo "playing on from game $(($(wc -l < "$dir/results.jsonl") + 1)) in the background; log in $log"
