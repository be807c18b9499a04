#!/usr/bin/env bash
# #34 item 4: the default manager (smooth(preset=kairos)) against lc0's default, legacy, at 60+0.6 on the virtual
# clock (VirtualNps 1400, Threads=1, 8mvs book shuffled with seed 7, two games at a time), SPRT elo0=0 elo1=10,
# alpha=beta=0.05, as the 10+0.1 SPRTs of EXPERIMENTS.md. Started with binary 0800805 (kept aside: the virtual
# clock replays exactly only with the same binary on the same kind of CPU). Resumable: gunzip results.jsonl.gz
# and games.pgn.gz, run it again with KAIROS=that binary, and it continues until the SPRT decides; GAMES=N stops
# after N games.
set -euo pipefail
cd "$(dirname "$0")"
kairos="${KAIROS:-../../target/release/kairos}"
resume=()
[ -s results.jsonl ] && resume=(--resume)
exec "$kairos" match \
  --engine name=default cmd=kairos \
  --engine name=legacy cmd=kairos option.TimeManager=legacy \
  --each tc=60+0.6 option.Threads=1 option.VirtualClock=true option.VirtualNps=1400 \
  --virtual-clock --games "${GAMES:-20000}" --concurrency "${CONCURRENCY:-2}" \
  --openings ../../../shared/books/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \
  --results results.jsonl --pgn games.pgn "${resume[@]}"
