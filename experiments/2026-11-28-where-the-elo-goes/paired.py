#!/usr/bin/env python3
"""Two managers against the same opponent on the same openings: the difference, opening pair by opening pair.

usage: paired.py NEW.jsonl[.gz] NEW_ENGINE OLD.jsonl[.gz] OLD_ENGINE

Both matches must play the same openings in the same order (the same book, order and seed), so that pair k is
one opening with both colours in each. Only the pairs whose two games are in both files count. Per pair: each
engine's points (0 to 2) and its mean Q at own moves 5, 10 and 20 (trajectory.py's Q, both sides' scores from
that engine's view); then the mean of NEW − OLD over the pairs, ± 1.96 standard errors of those differences.
"""
import collections
import gzip
import json
import sys

from trajectory import RESULT, mean_and_spread, q_of

MARKS = [5, 10, 20]


def per_pair(path, engine):
    """{pair_id: (points, {own move: mean Q})} for the pairs with both games."""
    opener = gzip.open if path.endswith('.gz') else open
    games = collections.defaultdict(list)
    for line in opener(path, 'rt'):
        game = json.loads(line)
        engine_is_white = game['white'] == engine
        result = RESULT[game['result']]
        points = result if engine_is_white else 1 - result
        white_first = game['opening']['fen'].split()[1] == 'w'
        q_at = collections.defaultdict(list)
        for ply, move in enumerate(game['moves']):
            own_move = ply // 2 + 1
            q = q_of(move.get('score') or {})
            if q is not None and own_move in MARKS:
                mover_is_engine = (white_first == (ply % 2 == 0)) == engine_is_white
                q_at[own_move].append(q if mover_is_engine else -q)
        games[game['pair_id']].append((points, {m: sum(v) / len(v) for m, v in q_at.items()}))
    pairs = {}
    for pair_id, both in games.items():
        if len(both) == 2:
            q = {m: (both[0][1][m] + both[1][1][m]) / 2 for m in MARKS if m in both[0][1] and m in both[1][1]}
            pairs[pair_id] = (both[0][0] + both[1][0], q)
    return pairs


def main(new_path, new_engine, old_path, old_engine):
    new, old = per_pair(new_path, new_engine), per_pair(old_path, old_engine)
    common = sorted(set(new) & set(old))
    print(f"{len(common)} opening pairs in both ({len(new)} whole pairs in NEW, {len(old)} in OLD)")
    print("| measure | NEW | OLD | NEW − OLD |")
    print("|---|---|---|---|")
    new_points = [new[p][0] / 2 for p in common]
    old_points = [old[p][0] / 2 for p in common]
    difference, spread = mean_and_spread([a - b for a, b in zip(new_points, old_points)])
    print(f"| score | {sum(new_points) / len(common):.3f} | {sum(old_points) / len(common):.3f} | "
          f"{difference:+.3f} ± {spread:.3f} |")
    for mark in MARKS:
        both = [p for p in common if mark in new[p][1] and mark in old[p][1]]
        if len(both) < 2:
            continue
        a, b = [new[p][1][mark] for p in both], [old[p][1][mark] for p in both]
        difference, spread = mean_and_spread([x - y for x, y in zip(a, b)])
        print(f"| Q at own move {mark} ({len(both)} pairs) | {sum(a) / len(a):+.3f} | {sum(b) / len(b):+.3f} | "
              f"{difference:+.3f} ± {spread:.3f} |")


if __name__ == '__main__':
    main(*sys.argv[1:5])
