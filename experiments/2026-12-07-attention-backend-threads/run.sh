#!/usr/bin/env bash
# An attention body's CPU threads by network (BackendThreads=-1, the default since 2026-12-07) against a backend a
# core of one thread each (BackendThreads=1, the default before): the 256×10 random-weight transformer (made by
# `cargo run --release -p nn --example make_test_nets -- --bench NETS`), the 10 bench positions, `go movetime MS`
# each (default 10000), no smart pruning, ROUNDS rounds alternating. With an older binary, whose default was 1,
# BackendThreads=0 is the same layout as -1 (before.txt).
# usage: KAIROS=target/release/kairos experiments/2026-12-07-attention-backend-threads/run.sh > after.txt
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kairos=$(cd "$root" && realpath "${KAIROS:-target/release/kairos}")
weights=${NETS:-/tmp/kairos-bench-nets}/bench-transformer-256x10.pb.gz
uci_nps=$root/experiments/2026-11-25-throughput-beside-lc0/uci_nps.py
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores); $("$kairos" --version)"
for round in $(seq "${ROUNDS:-2}"); do
  for threads in -1 1; do
    result=$("$uci_nps" --movetime "${MS:-10000}" "$kairos" --weights="$weights" --backend-threads="$threads" \
      -- SmartPruningFactor=0 | tail -n 1)
    echo "round $round BackendThreads=$threads $result"
  done
done
