#!/usr/bin/env bash
# Tabulates run.sh's cells: for each, `kairos match-report` (with both traces) into CELL/report, and one row a cell
# in grid.md: each manager's tree-size CV over own moves 10–60, clock used by the end of the games longer than the
# median (100 % less the clock left then, as a share of the base time), time losses, and bare ÷ preset for the
# first two (#34 item 1's target: within 10 %).
# OUT=DIR tabulates the cells of a run.sh with that OUT.
# usage: KAIROS=/path/to/kairos [OUT=…] experiments/2026-11-27-self-calibration-grid/report.sh   (gunzip the cells' files first)
set -euo pipefail
kairos=$(realpath "${KAIROS:-$(dirname "$0")/../../target/release/kairos}")
cd "${OUT:-$(dirname "$0")}"
{
  echo "| VirtualNps | tc | games | CV bare | CV preset | CV bare ÷ preset | clock used bare | clock used preset | used bare ÷ preset | time losses bare / preset |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for dir in $(ls -d nps-*-tc-* | sort -t- -k4,4 -k2,2n); do
    [ -s "$dir/results.jsonl" ] || continue
    "$kairos" match-report "$dir/results.jsonl" --out "$dir/report" \
      --trace "bare=$dir/bare-trace.jsonl" --trace "kairos=$dir/kairos-trace.jsonl" > /dev/null
    python3 - "$dir" <<'PY'
import re, sys
cell = sys.argv[1]
nps, tc = re.match(r"nps-(\d+)-tc-(.+)", cell).groups()
rows = {}
for line in open(f"{cell}/report/summary.md"):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 8 and cells[0] in ("bare", "kairos"):
        rows[cells[0]] = {"games": int(cells[1]), "flags": int(cells[2]), "left": float(cells[4].split()[0]),
                          "cv": float(cells[7])}
b, k = rows["bare"], rows["kairos"]
print(f"| {int(nps):,} | {tc} | {b['games']} | {b['cv']:.3f} | {k['cv']:.3f} | {b['cv'] / k['cv']:.2f} | "
      f"{100 - b['left']:.1f} % | {100 - k['left']:.1f} % | {(100 - b['left']) / (100 - k['left']):.2f} | "
      f"{b['flags']} / {k['flags']} |")
PY
  done
} > grid.md
cat grid.md
