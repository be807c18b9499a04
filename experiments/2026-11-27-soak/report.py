#!/usr/bin/env python3
"""The soak's bar (#35 item 4) from its committed records: games, how they ended, time losses, illegal moves
and missing best moves, the least clock left, the builds that played, and each engine's resident memory at
chosen games (rss.txt: seconds, games finished, manager, pid, VmRSS in kB), per process.
usage: report.py [GAMES…]   (games at which to show memory; default 100 1059 2000 3000)"""
import collections
import gzip
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "games.jsonl")
opener = open if os.path.exists(path) else gzip.open
records = [json.loads(line) for line in opener(path if os.path.exists(path) else path + ".gz", "rt")]
endings = collections.Counter(record["termination"] for record in records)
builds = collections.Counter(record["white_engine"]["id"] for record in records)
least_clock = min(move["clock_left_ms"] for record in records for move in record["moves"]
                  if move.get("clock_left_ms") is not None)
no_move = sum(1 for record in records for move in record["moves"] if not move.get("uci"))
print(f"games: {len(records)}; builds: {dict(builds)}")
print(f"endings: {dict(endings)}")
print(f"least clock left after a move: {least_clock} ms; moves without a move: {no_move}")
samples = collections.defaultdict(list)
for line in open(os.path.join(here, "rss.txt")):
    seconds, games, manager, pid, rss = line.split()
    samples[(manager.split("(model=")[0], pid)].append((int(games), int(rss)))
wanted = [int(g) for g in sys.argv[1:]] or [100, 1059, 2000, 3000]
print("engine (pid): first sample's games … last; RSS in kB at the first sample at or after each game")
for (manager, pid), rows in sorted(samples.items(), key=lambda item: item[1][0][0]):
    at = []
    for game in wanted:
        later = [rss for games, rss in rows if games >= game]
        at.append(f"{game}: {later[0] if later and rows[0][0] <= game else '—'}")
    print(f"  {manager:22} {pid:>6}  games {rows[0][0]}…{rows[-1][0]}  " + ", ".join(at))
