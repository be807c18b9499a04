#!/usr/bin/env python3
"""Where a match's score is won or lost: the engines' own evaluations, from ENGINE's side, at its own move numbers.

usage: trajectory.py RESULTS.jsonl[.gz] ENGINE

Each move in `kairos match`'s results carries the mover's score after its search. At own move m (the m-th move
each side makes from the book position), both sides' scores are turned to ENGINE's view and mapped to Q with lc0's
centipawn law inverted (cp = 90·tan(1.5637541897·Q); a mate is ±1). They are averaged within each game, then
within each pair of games (one opening, both colours, so that the book's imbalance cancels), then over the pairs
(± is 1.96 standard errors over pairs; a pair counts once both its games reach the move). (Q + 1) / 2 is the
score that Q predicts, ignoring draws. The last columns are each side's mean time on that move.
"""
import collections
import gzip
import json
import math
import sys

MARKS = [1, 2, 3, 4, 5, 8, 10, 15, 20, 25, 30, 40, 50, 60]
RESULT = {'WhiteWins': 1.0, 'BlackWins': 0.0, 'Draw': 0.5}


def q_of(score):
    if 'Centipawns' in score:
        return math.atan(score['Centipawns'] / 90) / 1.5637541897
    if 'Mate' in score:
        return 1.0 if score['Mate'] > 0 else -1.0
    return None


def mean_and_spread(values):
    """The mean and 1.96 standard errors of it (NaN for a single value)."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, float('nan')
    return mean, 1.96 * math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values))


def main(path, engine):
    opener = gzip.open if path.endswith('.gz') else open
    q_by_pair = collections.defaultdict(list)
    time_at = collections.defaultdict(list)
    games, points = 0, 0.0
    for line in opener(path, 'rt'):
        game = json.loads(line)
        games += 1
        engine_is_white = game['white'] == engine
        result = RESULT[game['result']]
        points += result if engine_is_white else 1 - result
        white_first = game['opening']['fen'].split()[1] == 'w'
        in_game = collections.defaultdict(list)
        for ply, move in enumerate(game['moves']):
            mover_is_white = white_first == (ply % 2 == 0)
            mover_is_engine = mover_is_white == engine_is_white
            own_move = ply // 2 + 1
            time_at[(own_move, mover_is_engine)].append(move['time_used_ms'])
            q = q_of(move.get('score') or {})
            if q is not None and own_move in MARKS:
                in_game[own_move].append(q if mover_is_engine else -q)
        for own_move, values in in_game.items():
            q_by_pair[(game['pair_id'], own_move)].append(sum(values) / len(values))
    q_at = collections.defaultdict(list)
    for (_, own_move), values in q_by_pair.items():
        if len(values) == 2:
            q_at[own_move].append(sum(values) / 2)
    print(f"{games} games; {engine} scored {points / games:.3f}")
    print(f"| own move | pairs | mean Q for {engine} | score it predicts | {engine}'s time (ms) | opponent's (ms) |")
    print("|---|---|---|---|---|---|")
    for move in MARKS:
        values = q_at[move]
        if not values:
            continue
        mean, spread = mean_and_spread(values)
        mine, theirs = time_at[(move, True)], time_at[(move, False)]
        print(f"| {move} | {len(values)} | {mean:+.3f} ± {spread:.3f} | {(mean + 1) / 2:.3f} | "
              f"{sum(mine) / len(mine):,.0f} | {sum(theirs) / len(theirs):,.0f} |")


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
