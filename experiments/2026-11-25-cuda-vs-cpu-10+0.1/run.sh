#!/bin/bash
# Kairos on CUDA (defaults: fp16, one search thread) against Kairos on the same machine's CPU (defaults), 10+0.1 on
# the wall clock, 10 games; run on an H100 host with the binary and network in .devcarry (BENCHMARKS.md).
TL=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$TL:$(ls -d $TL/../../nvidia/*/lib | tr '\n' ':')$PWD/.devcarry/lib
grep -m1 "model name" /proc/cpuinfo; grep -o -m1 "avx512_bf16\|amx_bf16" /proc/cpuinfo | sort -u | tr '\n' ' '; echo
k=$PWD/.devcarry/kairos
$k match --engine name=cuda cmd=$k option.BackendDevice=cuda option.WeightsFile=$PWD/weights/maia-1900.pb.gz \
  --engine name=cpu cmd=$k option.BackendDevice=cpu option.WeightsFile=$PWD/weights/maia-1900.pb.gz \
  --each tc=10+0.1 --games 10 --concurrency 2 --openings .devcarry/8mvs_+90_+99.epd --openings-order shuffled --seed 7 \
  --results $OUT/results.jsonl --pgn $OUT/games.pgn 2>&1 | tail -12
