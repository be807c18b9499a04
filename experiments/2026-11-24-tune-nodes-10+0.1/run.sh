#!/usr/bin/env bash
# SPSA of smooth(limit=nodes)'s new prune-floor key and the moves-left midpoint, on top of the configuration of
# 2026-11-24-nodes-vs-legacy-10+0.1, against legacy at 10+0.1 on the virtual clock (EXPERIMENTS.md, #10).
# Resumable: run it again and it continues from tune.jsonl; ITERATIONS=N sets the length.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s tune.jsonl ] && resume=(--resume)
exec "$kairos" tune \
  --time-manager 'smooth(limit=nodes,init-nps=1400,init-timeuse=0.9,init-tree-reuse=0.35,tree-reuse-update-rate=20.0,mle-legacy(steepness=10.0))' \
  --param prune-floor=0.9:0.5:1.0 --param mle-legacy.midpoint=64:50:80 \
  --against legacy --tc 10+0.1 --games-per-iteration 8 --iterations "${ITERATIONS:-6}" \
  --engine-option Threads=1 --engine-option VirtualClock=true --engine-option VirtualNps=1400 \
  --virtual-clock --concurrency 1 --seed 7 \
  --openings ../../../shared/books/8mvs_+90_+99.epd \
  --log tune.jsonl "${resume[@]}"
