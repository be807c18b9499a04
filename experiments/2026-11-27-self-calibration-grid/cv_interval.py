#!/usr/bin/env python3
"""The tree-size CV over own moves 10-60 of `bare` and `kairos` in one cell's results.jsonl, as `kairos
match-report` pools it (every own move 10-60 of every game, population form), and a 90 % bootstrap interval of
bare's CV over kairos's, resampling whole games (both managers' moves of a game go together).
usage: cv_interval.py CELL/results.jsonl [RESAMPLES]"""
import json
import random
import statistics
import sys

def own_nodes(game, name):
    """Nodes of `name`'s own moves 10-60 in one game (own move 1 is its first move after the book)."""
    fen = game["opening"]["fen"]
    white_starts = fen.split()[1] != "b"
    white_moves_after_book = white_starts == (len(game["opening"]["moves"]) % 2 == 0)
    first_own = 0 if white_moves_after_book == (game["white"] == name) else 1
    own = game["moves"][first_own::2]
    return [m["nodes"] for m in own[9:60] if m.get("nodes") is not None]

def cv(values):
    mean = statistics.fmean(values)
    return statistics.pstdev(values) / mean if mean else 0.0

games = [json.loads(line) for line in open(sys.argv[1])]
per_game = [(own_nodes(g, "bare"), own_nodes(g, "kairos")) for g in games]
def ratio(sample):
    bare = [n for b, _ in sample for n in b]
    kairos = [n for _, k in sample for n in k]
    return cv(bare), cv(kairos)
bare_cv, kairos_cv = ratio(per_game)
rng = random.Random(7)
ratios = sorted(
    (lambda b, k: b / k)(*ratio([rng.choice(per_game) for _ in per_game]))
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 2000)
)
low, high = ratios[int(0.05 * len(ratios))], ratios[int(0.95 * len(ratios)) - 1]
print(f"{len(games)} games: CV bare {bare_cv:.3f}, kairos {kairos_cv:.3f}, ratio {bare_cv / kairos_cv:.2f} "
      f"(90 % bootstrap {low:.2f}-{high:.2f})")
