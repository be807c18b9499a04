#!/usr/bin/env bash
# Winograd tile size by batch in the Rust network: backendbench on one core, every batch in Rust
# (--rust-batch-limit 64), batches 1-8, three builds alternating: 037422c as committed (F(2x2) below 4 positions,
# F(4x4) from 4), 037422c with F(2x2) for every batch (LARGE_TILES_FROM = 17), 7f267ee with F(4x4) for every batch
# (LARGE_TILES_FROM = 1; 7f267ee..037422c changed only option help text and a test's doc).
# The variants: build with `pub const LARGE_TILES_FROM` in nn/src/rust_net/winograd.rs set to 17 or 1 (not
# committed), copy target/release/kairos to /tmp/kairos-f2x2-only or /tmp/kairos-f4x4-only, and rebuild.
set -euo pipefail
W=$(cd "$(dirname "$0")/../.." && pwd)/weights/maia-1900.pb.gz
N=/tmp/kairos-bench-nets
for round in $(seq ${ROUNDS:-2}); do
  for precision in bf16 fp32; do
    for net in $W $N/bench-se-10x128.pb.gz $N/bench-se-20x256.pb.gz; do
      for k in /tmp/kairos-head /tmp/kairos-f2x2-only /tmp/kairos-f4x4-only; do
        echo "## round $round $precision $(basename $net .pb.gz) $(basename $k)"
        taskset -c 1 $k backendbench --weights $net --precision $precision --rust-batch-limit 64 --backend-threads 1 \
          --batches ${BATCHES:-20} --max-batch-size 8 --batch-step 1 2>&1 | grep -E '^[0-9]+,'
      done
    done
  done
done
