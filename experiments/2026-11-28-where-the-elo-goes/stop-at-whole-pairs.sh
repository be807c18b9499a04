#!/usr/bin/env bash
# Stops the `kairos match` playing into DIR as soon as every pair of games in DIR/results.jsonl is whole, so that a
# pentanomial count read afterwards holds no half pair (a resumed match plays on from there).
# usage: stop-at-whole-pairs.sh DIR
set -euo pipefail
dir=$(cd "${1:?usage: stop-at-whole-pairs.sh DIR}" && pwd)
match_pids() {
  for proc in /proc/[0-9]*; do
    if [ "$(readlink "$proc/cwd" 2>/dev/null)" = "$dir" ] && tr '\0' ' ' < "$proc/cmdline" 2>/dev/null |
      grep -q '^[^ ]*kairos[^ ]* match '; then
      basename "$proc"
    fi
  done
}
pids=$(match_pids)
[ -n "$pids" ] || { echo "no kairos match is playing into $dir" >&2; exit 1; }
pairs_whole() {
  python3 - "$dir/results.jsonl" <<'PY'
import collections, json, sys
pairs = collections.Counter(json.loads(line)["pair_id"] for line in open(sys.argv[1]) if line.strip())
sys.exit(0 if all(count == 2 for count in pairs.values()) else 1)
PY
}
until pairs_whole; do sleep 2; done
kill $pids
sleep 1
if pairs_whole; then
  echo "stopped at $(wc -l < "$dir/results.jsonl") games, every pair whole"
else
  echo "a game ended as the match was stopped: $dir/results.jsonl holds a half pair; resume and stop again" >&2
  exit 1
fi
