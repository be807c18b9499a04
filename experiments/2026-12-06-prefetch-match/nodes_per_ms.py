#!/usr/bin/env python3
"""Median nodes per millisecond of each engine over its own moves of a match's results (kairos match --results),
from the first move after the opening and from ply 16 after it (openings of the 8mvs book start with white).
usage: nodes_per_ms.py RESULTS.jsonl[.gz] ..."""
import gzip, json, statistics, sys
def games(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        for line in f:
            if line.strip(): yield json.loads(line)
for path in sys.argv[1:]:
    for skip in (0, 16):
        rates = {}
        for g in games(path):
            for i, m in enumerate(g['moves']):
                if i < skip or not m.get('time_used_ms'): continue
                who = g['white'] if i % 2 == 0 else g['black']
                rates.setdefault(who, []).append(m['nodes'] / m['time_used_ms'])
        print(path, 'from ply', skip, {k: round(statistics.median(v), 1) for k, v in rates.items()})
