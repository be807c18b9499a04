#!/usr/bin/env bash
# The SPRT of #10's tune row: smooth(preset=kairos) with the three keys as ../2026-11-25-tune-kairos-preset-10+0.1 tuned
# them (40 SPSA iterations, tune.jsonl.result.txt there) against legacy at 10+0.1 on the virtual clock, with the same
# test as ../2026-11-24-nodes-lc0curve-vs-legacy-10+0.1 (elo0=0, elo1=10, alpha=beta=0.05; EXPERIMENTS.md).
# Resumable: gunzip results.jsonl.gz, run it again and it continues from results.jsonl until the SPRT decides;
# GAMES=N stops after N games.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=tuned cmd=kairos \
           'option.TimeManager=smooth(preset=kairos,nodes-time-cap=2.12781400328713,prune-floor=0.7582905450076635,mle-legacy(midpoint=52.39143882927091))' \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=10+0.1 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-20000}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
