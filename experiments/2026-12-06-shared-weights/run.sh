#!/usr/bin/env bash
# A process's CPU backends sharing one copy of the network's weights: BEFORE and AFTER (two kairos binaries) in
# alternating rounds, each at its defaults (Threads=0: a search thread and a backend per core):
# - resident memory once the network is loaded and has evaluated one position, minus the same engine's with the
#   4-filter test net (../2026-11-26-transformer-throughput/loaded_rss.py), at the defaults and with Threads=1;
# - search speed through UCI (../2026-11-25-throughput-beside-lc0/uci_nps.py: the 10 bench positions,
#   `go movetime MS` each, SmartPruningFactor=0).
# Networks: Maia-1900 and the random-weight benchmark nets of `make_test_nets --bench` (NETS). With LC0_BLAS, lc0's
# memory on the same networks too. Prints "round R NET KEY VALUE" lines.
set -euo pipefail
cd "$(dirname "$0")"
root=../..
rounds="${ROUNDS:-2}"
movetime="${MOVETIME:-2500}"
nets="${NETS:-/tmp/kairos-bench-nets}"
small="$root/reference/nets/se-classical-value-classical-policy.pb.gz"
rss=../2026-11-26-transformer-throughput/loaded_rss.py
uci_nps=../2026-11-25-throughput-beside-lc0/uci_nps.py
[ -f "$nets/bench-se-20x256.pb.gz" ] || (cd "$root" && cargo run -q --release -p nn --example make_test_nets -- --bench "$nets" >/dev/null)
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) before $BEFORE after $AFTER"
net_rss() { # ENGINE ARGS... : the network's resident memory in kB
  local big base
  big=$("$rss" "$@" --weights="$w" | awk '{print $2}')
  base=$("$rss" "$@" --weights="$small" | awk '{print $2}')
  echo "$((big - base))"
}
for round in $(seq 1 "$rounds"); do
  for net in maia-1900 bench-se-10x128 bench-se-20x256 bench-transformer-256x10; do
    case $net in maia-1900) w=$(realpath "$root/weights/maia-1900.pb.gz");; *) w="$nets/$net.pb.gz";; esac
    for build in before after; do
      engine=$BEFORE; [ $build = after ] && engine=$AFTER
      echo "round $round $net rss-kb-$build $(net_rss "$engine")"
      echo "round $round $net rss-kb-threads1-$build $(net_rss "$engine" --threads=1)"
      nps=$("$uci_nps" --movetime "$movetime" "$engine" --weights="$w" -- SmartPruningFactor=0 | tail -n 1 | awk '{print $(NF-1)}')
      echo "round $round $net uci-nps-$build $nps"
    done
    if [ "$round" = 1 ] && [ -n "${LC0_BLAS:-}" ]; then
      echo "round $round $net rss-kb-lc0-blas $(OPENBLAS_CORETYPE=SkylakeX net_rss "$LC0_BLAS" --backend=blas)"
    fi
  done
done
