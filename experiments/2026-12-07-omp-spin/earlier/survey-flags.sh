#!/usr/bin/env bash
# usage: speed2.sh KAIROS MS ROUNDS "FLAGS" SETTING...
set -euo pipefail
kairos=$1 ms=$2 rounds=$3 flags=$4; shift 4
uci_nps=/work/main/experiments/2026-11-25-throughput-beside-lc0/uci_nps.py
for round in $(seq "$rounds"); do
  for setting in "$@"; do
    if [ "$setting" = unset ]; then envs=(); else envs=("$setting"); fi
    result=$(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "${envs[@]}" "$uci_nps" --movetime "$ms" "$kairos" $flags -- SmartPruningFactor=0 | tail -n 1)
    echo "round $round $setting $result load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
