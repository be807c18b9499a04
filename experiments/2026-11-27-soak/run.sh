#!/usr/bin/env bash
# #35 item 4: 3,000 games at 1+0.01 (a round robin of legacy, the default, smooth(preset=even) and ctm, 500 games
# a pairing, one game at a time), with the resident memory of every engine process sampled every 15 s. Resumes
# where it stopped (kairos match --resume). Each engine gets its manager as a command-line flag, so that its
# process can be told apart in rss.txt (seconds, games finished, engine, pid, VmRSS in kB).
# usage: KAIROS=target/release/kairos experiments/2026-11-27-soak/run.sh   (then gzip -kf games.jsonl to commit)
# MIXED=1 resumes with a different build than the games so far (kairos match --allow-mixed-binaries); each game
# records its engines' builds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kairos=$(realpath "${KAIROS:-$root/target/release/kairos}")
results="$here/games.jsonl"
# The committed record is gzipped; the match appends to the plain file.
if [ ! -e "$results" ] && [ -e "$results.gz" ]; then gunzip -k "$results.gz"; fi
resume=()
if [ -s "$results" ]; then resume=(--resume); fi
if [ "${MIXED:-0}" = 1 ]; then resume+=(--allow-mixed-binaries); fi
ctm="ctm(model=$root/experiments/2026-11-24-ctm-data/ctm-2.1.safetensors)"
"$kairos" match --tournament round-robin \
  --engine name=legacy cmd="$kairos" arg=--time-manager=legacy \
  --engine name=default cmd="$kairos" \
  --engine name=even cmd="$kairos" 'arg=--time-manager=smooth(preset=even)' \
  --engine name=ctm cmd="$kairos" "arg=--time-manager=$ctm" \
  --each tc=1+0.01 option.Threads=1 "option.WeightsFile=$root/weights/maia-1900.pb.gz" \
  --games 500 --openings "$root/../shared/books/8mvs_+90_+99.epd" \
  --results "$results" "${resume[@]}" > "$here/match.txt" 2>&1 &
match=$!
while kill -0 "$match" 2>/dev/null; do
  games=$(grep -c '' "$results" 2>/dev/null || true)
  for pid in $(pgrep -P "$match" || true); do
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    manager=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -o -- '--time-manager=[^ ]*' || echo default)
    if [ -n "$rss" ]; then echo "$(date +%s) ${games:-0} ${manager#--time-manager=} $pid $rss" >> "$here/rss.txt"; fi
  done
  sleep 15
done
wait "$match"
