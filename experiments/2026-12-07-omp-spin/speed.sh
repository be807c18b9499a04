#!/usr/bin/env bash
# Search speed by libgomp wait setting: the 10 `kairos bench` positions, `go movetime MS` each (default 1000), no
# smart pruning, all else at defaults, ROUNDS rounds (default 3) alternating the arms. Arms: NOFIX (a binary without
# the restart: libgomp's own spin, 300,000 polls), FIX (with it, as a user runs it) and FIX with each setting of
# SETTINGS in its environment (a user's setting: no restart; default "OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=3000").
# BUSY=N keeps N busy loops running beside each measurement (another program on N of the cores). Each line ends
# with the CPU the rest of the machine took meanwhile (this machine is shared).
# usage: NOFIX=kairos-b0465fb FIX=kairos-1ef18fd experiments/2026-12-07-omp-spin/speed.sh NETWORK > FILE
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
uci_nps=$root/experiments/2026-11-25-throughput-beside-lc0/uci_nps.py
network=$1
echo "# $(date -u +%FT%TZ) $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cores); $network; ${BUSY:-0} busy loops"
echo "# nofix: $("$NOFIX" --version); fix: $("$FIX" --version)"
busy=()
trap 'kill "${busy[@]}" 2> /dev/null || true' EXIT
for _ in $(seq "${BUSY:-0}"); do
  sh -c 'while :; do :; done' &
  busy+=($!)
done
# Busy ticks of all CPUs so far (user, nice, system, irq, softirq, steal), in 1/100 s.
busy_ticks() {
  awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat
}
arms=("nofix" "fix")
for setting in ${SETTINGS:-OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=3000}; do
  arms+=("fix $setting")
done
for round in $(seq "${ROUNDS:-3}"); do
  for arm in "${arms[@]}"; do
    read -r binary setting <<< "$arm"
    kairos=$NOFIX; [ "$binary" = fix ] && kairos=$FIX
    machine_before=$(busy_ticks)
    result=$( { /usr/bin/time -f "own %U %S" env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT ${setting:+"$setting"} \
      "$uci_nps" --movetime "${MS:-1000}" "$kairos" --weights="$network" -- SmartPruningFactor=0; } 2>&1 | tail -n 2)
    machine=$(( $(busy_ticks) - machine_before ))
    own=$(awk '/^own/ {print int(($2 + $3) * 100)}' <<< "$result")
    nps=$(grep total <<< "$result")
    # The CPU the rest of the machine used meanwhile (other programs; the busy loops among them), in seconds.
    echo "round $round $binary ${setting:-(no setting)} $nps; others' CPU $(( (machine - own) / 100 )) s"
  done
done
