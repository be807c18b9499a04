#!/usr/bin/env bash
# What made each engine's resident memory grow in ../../2026-11-24-reliability-1+0.01 (#13 item 5): one Kairos
# plays itself, 150 games (100 for some) of at most 120 plies at `go nodes 30`, the VmRSS printed after every
# game. BEFORE is a build of dc98f82 (before the batch padding), AFTER one of 458e330. The committed *.tsv are
# the run of 2026-11-24/25 on the AMD EPYC (AVX512-BF16, so Precision=auto is bf16). trim.tsv came from a build
# of dc98f82 that called glibc's malloc_trim(0) at every ucinewgame, not committed since it barely helped.
set -euo pipefail
cd "$(dirname "$0")"
before="${BEFORE:?a kairos built at dc98f82}"
after="${AFTER:?a kairos built at 458e330}"
./rss_probe.py "$before" 150 30 120 > default.tsv
MALLOC_ARENA_MAX=2 ./rss_probe.py "$before" 150 30 120 > arena2.tsv
./rss_probe.py "$before" 150 30 120 NNCacheSize=0 > nocache.tsv
./rss_probe.py "$before" 150 30 120 Backend=uniform > uniform.tsv
MALLOC_MMAP_THRESHOLD_=65536 ./rss_probe.py "$before" 100 30 120 > mmap64k.tsv
ONEDNN_PRIMITIVE_CACHE_CAPACITY=32 LRU_CACHE_CAPACITY=32 ./rss_probe.py "$before" 100 30 120 > cap32.tsv
./rss_probe.py "$before" 100 30 120 Precision=fp32 > fp32.tsv
./rss_probe.py "$after" 150 30 120 > padonly.tsv
