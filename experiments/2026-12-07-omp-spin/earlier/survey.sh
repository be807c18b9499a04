#!/usr/bin/env bash
# usage: speed.sh KAIROS WEIGHTS MS ROUNDS SETTING...   (SETTING: unset, or VAR=VALUE)
set -euo pipefail
kairos=$1 weights=$2 ms=$3 rounds=$4; shift 4
uci_nps=/work/main/experiments/2026-11-25-throughput-beside-lc0/uci_nps.py
for round in $(seq "$rounds"); do
  for setting in "$@"; do
    if [ "$setting" = unset ]; then envs=(); else envs=("$setting"); fi
    result=$(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "${envs[@]}" "$uci_nps" --movetime "$ms" "$kairos" --weights="$weights" -- SmartPruningFactor=0 | tail -n 1)
    echo "round $round $setting $result load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
