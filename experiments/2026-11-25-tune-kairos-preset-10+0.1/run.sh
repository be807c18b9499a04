#!/usr/bin/env bash
# SPSA of the node limit's keys on top of Kairos's default manager, smooth(preset=kairos): prune-floor, nodes-time-cap
# and the moves-left midpoint, against legacy at 10+0.1 on the virtual clock (EXPERIMENTS.md, #10's "tune" row; the
# result is then to be checked by the SPRT of 2026-11-24-nodes-lc0curve-vs-legacy-10+0.1).
# Resumable: run it again and it continues from tune.jsonl; keep ITERATIONS the same across resumes, since SPSA's
# gain schedule depends on it.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s tune.jsonl ] && resume=(--resume)
exec "$kairos" tune \
  --time-manager 'smooth(preset=kairos)' \
  --param prune-floor=0.9:0.5:1.0 --param nodes-time-cap=2.0:1.25:4.0 --param mle-legacy.midpoint=51.5:40:70 \
  --against legacy --tc 10+0.1 --games-per-iteration 8 --iterations "${ITERATIONS:-40}" \
  --engine-option Threads=1 --engine-option VirtualClock=true --engine-option VirtualNps=1400 \
  --virtual-clock --concurrency "${CONCURRENCY:-2}" --seed 7 \
  --openings ../../../shared/books/8mvs_+90_+99.epd \
  --log tune.jsonl "${resume[@]}"
