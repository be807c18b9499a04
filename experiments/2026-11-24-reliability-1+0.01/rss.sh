#!/usr/bin/env bash
# Every 5 s while process $1 (a kairos match) runs: seconds since the epoch, games in results.jsonl (of the
# current folder), and the pid and resident memory (kB) of each engine process the match has started.
while kill -0 "$1" 2>/dev/null; do
  games=$(wc -l < results.jsonl 2>/dev/null || echo 0)
  for pid in $(pgrep -P "$1"); do
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [ -n "$rss" ] &&
      printf '%s\t%s\t%s\t%s\n' "$(date +%s)" "$games" "$pid" "$rss"
  done
  sleep 5
done
