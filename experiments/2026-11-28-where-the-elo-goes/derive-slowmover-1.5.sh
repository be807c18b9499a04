#!/usr/bin/env bash
# Derives every file that EXPERIMENTS.md cites for the slowmover-1.5 legacy's match against legacy at 60+0.6 from
# its results.jsonl (unzipped, holding exactly N games), each named with N: both SPRTs (item 4's over all games, the
# non-regression test over the games after the first 272), the Q trajectory, the pairing with the spread-after-5
# legacy's match, new and reused nodes, the spread of time and trees, and `kairos match-report`'s tables.
# usage: derive-slowmover-1.5.sh N
set -euo pipefail
N=${1:?usage: derive-slowmover-1.5.sh N}
cd "$(dirname "$0")"
root=$(git rev-parse --show-toplevel)
E=legacy-spread-0.15-after-5-slowmover-1.5
R=60+0.6-$E/results.jsonl
[ "$(wc -l < $R)" = "$N" ] || { echo "$R holds $(wc -l < $R) games, not $N" >&2; exit 1; }
./sprt.py $R $E > sprt-$E-vs-legacy-60+0.6-$N.txt
./sprt.py $R $E --after 272 --elo0 -10 --elo1 0 > sprt-non-regression-after-272-$E-vs-legacy-60+0.6-$N.txt
./trajectory.py $R $E > $E-vs-legacy-60+0.6-$N.md
./paired.py $R $E 60+0.6-legacy-spread-0.15-after-5/results.jsonl.gz legacy-spread-0.15-after-5 \
  > paired-$E-vs-legacy-spread-0.15-after-5-60+0.6-$N.md
./new_and_reused.py $R | sed 's/results\.jsonl /results.jsonl.gz /' > new-and-reused-$E-60+0.6-$N.md
./time_spread.py $R > time-spread-$E-60+0.6-$N.md
report=$(mktemp -d)
LD_LIBRARY_PATH="$root/.libtorch/torch/lib" "$(./binary-at.sh 042a2e3)" match-report $R --out "$report" > /dev/null
python3 - "$report/summary.md" report-$E-vs-legacy-60+0.6-$N.md <<'PY'
import re, sys
text = open(sys.argv[1]).read()
source = "results.jsonl` (gzipped there), `kairos match-report`; its plots left out."
text = text.replace("results.jsonl`.", source, 1)
open(sys.argv[2], "w").write(re.sub(r"\n## Plots\n.*?(?=\n## )", "", text, flags=re.S))
PY
rm -rf "$report"
