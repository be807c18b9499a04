#!/usr/bin/env python3
"""Compares two run-match.sh results game by game: how many games have the same moves, and from which ply the
others part. usage: compare.py REFERENCE/results.jsonl OTHER/results.jsonl"""
import json
import sys

def games(path):
    return {g["game_id"]: [m["uci"] for m in g["moves"]] for g in map(json.loads, open(path))}

reference, other = games(sys.argv[1]), games(sys.argv[2])
common = sorted(set(reference) & set(other))
same = [i for i in common if reference[i] == other[i]]
print(f"{len(same)} of {len(common)} games have the same moves")
for i in common:
    if reference[i] != other[i]:
        a, b = reference[i], other[i]
        ply = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        print(f"game {i}: parts at ply {ply + 1} ({len(a)} and {len(b)} plies)")
