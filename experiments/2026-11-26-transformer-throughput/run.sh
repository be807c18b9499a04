#!/usr/bin/env bash
# #31 item 5: Kairos beside lc0 909a4082 on two networks of real shape, random weights (written by
# `cargo run --release -p nn --example make_test_nets -- --bench DIR`): a transformer in the BT layout (embedding
# 256, 10 encoder layers, 8 heads, DFF 384, smolgen 32/256/256, dense positional embedding, multi-head format 7,
# input format 4)
# and SE towers of 10x128 and 20x256 (convolution policy, WDL, moves left). In ROUNDS rounds:
# - network evaluations per second at batch 1 and 32 (`backendbench`): Kairos fp32 and bf16 with one core
#   (BackendThreads=1, the default) and with both (0); lc0's blas backend (OpenBLAS with SkylakeX kernels,
#   threads 1 and 2) and its onednn backend (which refuses attention bodies);
# - search speed through UCI, each engine at its defaults but SmartPruningFactor=0 (uci_nps.py: the 10 bench
#   positions, movetime MS; smart pruning would stop lc0 after about 1.7 s, in its slow first evaluations);
# - resident memory once the network is loaded and has evaluated one position (loaded_rss.py), minus the same
#   engine's with the 4-filter test net reference/nets/se-classical-value-classical-policy.pb.gz.
# PRECISIONS lists Kairos's precisions for backendbench (default "fp32 bf16"; "fp32" alone on a CPU that emulates
# bf16). LC0_BLAS and LC0_ONEDNN are the two lc0 builds. Prints "round R KEY VALUE" lines.
set -euo pipefail
cd "$(dirname "$0")"
root=../..
kairos="${KAIROS:-$root/target/release/kairos}"
rounds="${ROUNDS:-2}"
movetime="${MOVETIME:-2500}"
nets="${NETS:-/tmp/kairos-bench-nets}"
small="$root/reference/nets/se-classical-value-classical-policy.pb.gz"
uci_nps=../2026-11-25-throughput-beside-lc0/uci_nps.py
export OPENBLAS_CORETYPE=SkylakeX
[ -f "$nets/bench-se-20x256.pb.gz" ] || (cd "$root" && cargo run -q --release -p nn --example make_test_nets -- --bench "$nets" >/dev/null)

echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) $(grep -o -m1 -w amx_bf16 /proc/cpuinfo || true) commit $(git rev-parse --short HEAD), kairos $kairos"
rate() { tail -n 1 | awk -F, '{gsub(/ /, "", $2); print $2}'; }
for round in $(seq 1 "$rounds"); do
  for net in bench-transformer-256x10 bench-se-10x128 bench-se-20x256; do
    w="$nets/$net.pb.gz"
    for batch in 1 32; do
      for precision in ${PRECISIONS:-fp32 bf16}; do
        for threads in 1 0; do
          r=$("$kairos" backendbench --weights "$w" --device cpu --precision "$precision" --backend-threads "$threads" \
            --batches 8 --start-batch-size "$batch" --max-batch-size "$batch" 2>&1 | rate)
          echo "round $round $net backendbench$batch-kairos-$precision-threads$threads $r"
        done
      done
      for threads in 1 2; do
        r=$("$LC0_BLAS" backendbench --weights="$w" --backend=blas --backend-opts="threads=$threads" --batches=8 \
          --start-batch-size="$batch" --max-batch-size="$batch" 2>/dev/null | rate)
        echo "round $round $net backendbench$batch-lc0-blas-threads$threads $r"
      done
      if [ "$net" != bench-transformer-256x10 ]; then
        r=$("$LC0_ONEDNN" backendbench --weights="$w" --backend=onednn --batches=8 --start-batch-size="$batch" \
          --max-batch-size="$batch" 2>/dev/null | rate)
        echo "round $round $net backendbench$batch-lc0-onednn $r"
      fi
    done
    nps=$("$uci_nps" --movetime "$movetime" "$kairos" --weights="$w" -- SmartPruningFactor=0 | tail -n 1 | awk '{print $(NF-1)}')
    echo "round $round $net uci-kairos $nps"
    nps=$("$uci_nps" --movetime "$movetime" "$kairos" --weights="$w" --backend-threads=0 -- SmartPruningFactor=0 | tail -n 1 | awk '{print $(NF-1)}')
    echo "round $round $net uci-kairos-backendthreads0 $nps"
    nps=$("$uci_nps" --movetime "$movetime" "$LC0_BLAS" --weights="$w" --backend=blas -- SmartPruningFactor=0 2>/dev/null | tail -n 1 | awk '{print $(NF-1)}')
    echo "round $round $net uci-lc0-blas $nps"
    if [ "$net" != bench-transformer-256x10 ]; then
      nps=$("$uci_nps" --movetime "$movetime" "$LC0_ONEDNN" --weights="$w" --backend=onednn -- SmartPruningFactor=0 2>/dev/null | tail -n 1 | awk '{print $(NF-1)}')
      echo "round $round $net uci-lc0-onednn $nps"
    fi
    if [ "$round" = 1 ]; then
      for engine in kairos lc0-blas; do
        case $engine in
          kairos) cmd=("$kairos");;
          lc0-blas) cmd=("$LC0_BLAS" --backend=blas);;
        esac
        big=$(./loaded_rss.py "${cmd[@]}" --weights="$w" | awk '{print $2}')
        base=$(./loaded_rss.py "${cmd[@]}" --weights="$small" | awk '{print $2}')
        echo "round $round $net rss-net-kb-$engine $((big - base)) (loaded $big, with the small net $base)"
      done
    fi
  done
done
