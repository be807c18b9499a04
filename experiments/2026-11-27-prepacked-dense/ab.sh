#!/usr/bin/env bash
# Dense layers prepacked for oneDNN (7e79627) against the build before it, with lc0 beside them, in one sitting:
# `backendbench` (30 batches a size) in bf16 on one core (Kairos BackendThreads=1, lc0 blas threads=1) and on
# two (BackendThreads=0, lc0 blas threads=2, lc0 onednn with OpenMP's default), at batch 1 and 32, ROUNDS rounds
# alternating the builds, on the 256x10 transformer and the 20x256 SE tower of make_test_nets --bench and on
# Maia-1900. BEFORE and AFTER are the two kairos binaries, LC0_BLAS and LC0_ONEDNN lc0 909a4082's two builds.
# Prints "round R NET KEY VALUE" lines (../2026-11-26-transformer-throughput/summarize.py averages them).
set -euo pipefail
cd "$(dirname "$0")"
root=../..
rounds="${ROUNDS:-3}"
nets="${NETS:-/tmp/kairos-bench-nets}"
export OPENBLAS_CORETYPE=SkylakeX
[ -f "$nets/bench-se-20x256.pb.gz" ] || (cd "$root" && cargo run -q --release -p nn --example make_test_nets -- --bench "$nets" >/dev/null)
cp "$root/weights/maia-1900.pb.gz" "$nets/maia-1900.pb.gz"
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) $(grep -o -m1 -w amx_bf16 /proc/cpuinfo || true) before $BEFORE after $AFTER"
rate() { tail -n 1 | awk -F, '{gsub(/ /, "", $2); print $2}'; }
for round in $(seq 1 "$rounds"); do
  for net in bench-transformer-256x10 bench-se-20x256 maia-1900; do
    w="$nets/$net.pb.gz"
    for batch in 1 32; do
      for threads in 1 0; do
        for build in before after; do
          binary=$BEFORE; [ $build = after ] && binary=$AFTER
          r=$("$binary" backendbench --weights "$w" --device cpu --precision bf16 --backend-threads "$threads" \
            --batches 30 --start-batch-size "$batch" --max-batch-size "$batch" 2>&1 | rate)
          echo "round $round $net backendbench$batch-kairos-$build-threads$threads $r"
        done
      done
      for threads in 1 2; do
        r=$("$LC0_BLAS" backendbench --weights="$w" --backend=blas --backend-opts="threads=$threads" --batches=30 \
          --start-batch-size="$batch" --max-batch-size="$batch" 2>/dev/null | rate)
        echo "round $round $net backendbench$batch-lc0-blas-threads$threads $r"
      done
      if [ "$net" != bench-transformer-256x10 ]; then
        r=$("$LC0_ONEDNN" backendbench --weights="$w" --backend=onednn --batches=30 --start-batch-size="$batch" \
          --max-batch-size="$batch" 2>/dev/null | rate)
        echo "round $round $net backendbench$batch-lc0-onednn $r"
      fi
    done
  done
done
