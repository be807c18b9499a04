#!/usr/bin/env python3
"""Reliability figures of run.sh (#13 item 5): terminations from results.jsonl (or its committed .gz), and each
engine process's resident memory from rss.tsv at the first sample after game 10, after game 500 (or the last
game the process saw, if fewer) and at the end.

usage: report.py [DIR]   (DIR: the folder run.sh wrote, by default this one)"""
import collections
import gzip
import json
import sys
from pathlib import Path

here = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
results = here / "results.jsonl"
lines = results.open() if results.exists() else gzip.open(here / "results.jsonl.gz", "rt")
games = [json.loads(line) for line in lines]
terminations = collections.Counter(game["termination"] for game in games)
print(f"games {len(games)}")
for name, count in terminations.most_common():
    print(f"  {name:24} {count}")
for kind in ("TimeForfeit", "EngineCrashed", "EngineHung", "IllegalMove", "NoBestMove"):
    print(f"{kind}: {terminations.get(kind, 0)}")

samples = collections.defaultdict(list)
for line in (here / "rss.tsv").open():
    _, done, pid, rss_kb = (int(field) for field in line.split())
    samples[pid].append((done, rss_kb))


def at(series, games_done):
    """The first sample taken once `games_done` games had finished."""
    return next((rss for done, rss in series if done >= games_done), None)


print("pid       games seen   RSS MiB at game 10   at game 500   at the end   change 10 -> 500")
for pid, series in sorted(samples.items()):
    start, middle, end = at(series, 10), at(series, min(500, series[-1][0])), series[-1][1]
    change = f"{100 * (middle - start) / start:+.1f} %" if start and middle else "n/a"
    fmt = lambda kb: f"{kb / 1024:.0f}" if kb else "n/a"
    print(f"{pid:<9} {series[0][0]:>4}-{series[-1][0]:<6} {fmt(start):>18} {fmt(middle):>13} {fmt(end):>12}   {change}")
