#!/usr/bin/env python3
"""Whether two match runs played the same games: every move, its time and its tree size, game by game."""
import json
import sys


def moves(directory):
    with open(f"{directory}/results.jsonl") as results:
        games = [json.loads(line) for line in results]
    return [[(m["uci"], m["time_used_ms"], m["nodes"]) for m in game["moves"]] for game in games]


a, b = moves(sys.argv[1]), moves(sys.argv[2])
same = a == b
print(f"{sys.argv[1]} and {sys.argv[2]}: {len(a)} and {len(b)} games, {sum(map(len, a))} and {sum(map(len, b))}"
      f" moves; {'the same moves, times and tree sizes' if same else 'DIFFERENT'}")
sys.exit(0 if same else 1)
