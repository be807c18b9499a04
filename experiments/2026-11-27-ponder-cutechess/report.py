#!/usr/bin/env python3
"""Counts, over every chunk of a mode: games, results, how games ended (time forfeits, illegal moves,
disconnections, stalls), and each engine's ponder searches, hits and misses from cutechess's debug log (the
committed copy is gzipped).
usage: report.py [MODE]   (ponder-vs-ponder, the default, or ponder-vs-no-ponder)"""
import collections
import glob
import gzip
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
mode = sys.argv[1] if len(sys.argv) > 1 else "ponder-vs-ponder"
results, endings, ponder = collections.Counter(), collections.Counter(), collections.Counter()
scores = collections.Counter()
for chunk in sorted(glob.glob(os.path.join(here, mode, "chunk-*"))):
    pgn = open(os.path.join(chunk, "games.pgn")).read() if os.path.exists(os.path.join(chunk, "games.pgn")) else ""
    for game in re.split(r"\n(?=\[Event )", pgn.strip()):
        if not game:
            continue
        tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', game, re.M))
        results[tags.get("Result", "?")] += 1
        endings[tags.get("Termination", "normal")] += 1
        comment = re.findall(r"\{([^}]*)\}\s*(?:1-0|0-1|1/2-1/2|\*)\s*$", game)
        if comment:
            endings["comment: " + re.sub(r"\d+", "N", comment[-1])] += 1
        for colour, name in (("White", tags.get("White")), ("Black", tags.get("Black"))):
            points = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5)}.get(tags.get("Result"), (0, 0))
            scores[name] += points[0] if colour == "White" else points[1]
    log = os.path.join(chunk, "cutechess-debug.log")
    opened = open(log, errors="replace") if os.path.exists(log) else (
        gzip.open(log + ".gz", "rt", errors="replace") if os.path.exists(log + ".gz") else None)
    if opened:
        for line in opened:
            sent = re.search(r">(\S+)\(\d+\): (go ponder|ponderhit)", line)
            if sent:
                ponder[(sent.group(1), sent.group(2))] += 1
print(f"games: {sum(results.values())}; results: {dict(results)}")
print(f"points: {dict(scores)}")
print("endings:")
for ending, count in endings.most_common():
    print(f"  {count:5}  {ending}")
for engine in sorted({engine for engine, _ in ponder}):
    searches, hits = ponder[(engine, "go ponder")], ponder[(engine, "ponderhit")]
    print(f"{engine}: {searches} ponder searches, {hits} hits, {searches - hits} misses "
          f"({100 * hits / max(1, searches):.0f} % hit)")
