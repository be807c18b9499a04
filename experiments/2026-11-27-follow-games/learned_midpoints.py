#!/usr/bin/env python3
"""The midpoint each of the following engine's games started from, solved from its first traced move's
remaining moves (lc0's law a(1 + 2(m/a)^7)^(1/7) - m at m = ply/2, the book ending at ply 16 or 17), in trace
order (the two processes of the two games in flight interleave).
usage: learned_midpoints.py CONDITION   (reads CONDITION/following-trace.jsonl.gz)"""
import gzip
import json
import sys


def law(a, m):
    return a * (1 + 2 * (m / a) ** 7) ** (1 / 7) - m


def solve(remaining, m):
    low, high = 1.0, 1000.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if law(middle, m) < remaining else (low, middle)
    return (low + high) / 2


midpoints = []
for line in gzip.open(f"{sys.argv[1]}/following-trace.jsonl.gz", "rt"):
    move = json.loads(line)
    if move["game_ply"] in (16, 17):
        remaining = next(step["value"] for step in move["steps"] if step["name"] == "remaining_moves")
        midpoints.append(solve(remaining, move["game_ply"] / 2))
print("games", len(midpoints))
print("first 6:", [round(x, 1) for x in midpoints[:6]])
print("games 35-46:", [round(x, 1) for x in midpoints[34:46]])
print("last 6:", [round(x, 1) for x in midpoints[-6:]])
