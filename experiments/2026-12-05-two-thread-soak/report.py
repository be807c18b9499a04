#!/usr/bin/env python3
"""The two-thread soak's record (games.jsonl, or its .gz): games, how they ended, time losses, moves without a move,
the least clock left after a move, the builds that played, and the engines' nodes a move.
usage: report.py"""
import collections
import gzip
import json
import os
import statistics

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "games.jsonl")
with (open(path) if os.path.exists(path) else gzip.open(path + ".gz", "rt")) as lines:
    records = [json.loads(line) for line in lines]
endings = collections.Counter(record["termination"] for record in records)
builds = collections.Counter(record["white_engine"]["id"] for record in records)
moves = [move for record in records for move in record["moves"]]
least_clock = min(move["clock_left_ms"] for move in moves if move.get("clock_left_ms") is not None)
no_move = sum(1 for move in moves if not move.get("uci"))
nodes = [move["nodes"] for move in moves if move.get("nodes")]
print(f"games: {len(records)}; builds: {dict(builds)}")
print(f"endings: {dict(endings)}")
print(f"moves: {len(moves)}; least clock left after a move: {least_clock} ms; moves without a move: {no_move}")
print(f"nodes a move: median {statistics.median(nodes):.0f}, mean {statistics.mean(nodes):.0f}, most {max(nodes)}")
