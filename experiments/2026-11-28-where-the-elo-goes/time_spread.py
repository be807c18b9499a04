#!/usr/bin/env python3
"""How each engine of a match spreads its time and tree size over its own moves 10 to 40.

usage: time_spread.py RESULTS.jsonl[.gz]

For each game and engine, every own move's time and node count (the tree at the end of the search, reused visits
included) are divided by that engine's median in the game; the quantiles of those ratios over all games show how
far a manager departs from an even share, and in which direction: a low 5 % quantile is moves cut short (smart
pruning, or a big reused tree under a node target), a high 90 % quantile is time moved to other moves. A second
table says when each engine spends its clock: the share of all its thinking time, over all games, spent by own move
5, 10, 20, 30 and 40 (a front-loaded manager's shares are higher).
"""
import collections
import gzip
import json
import statistics
import sys

FIRST, LAST = 10, 40
QUANTILES = [0.05, 0.10, 0.25, 0.75, 0.90]
SHARE_BY = [5, 10, 20, 30, 40]


def main(path):
    opener = gzip.open if path.endswith('.gz') else open
    ratios = collections.defaultdict(lambda: ([], []))
    time_by_move = collections.defaultdict(collections.Counter)
    for line in opener(path, 'rt'):
        game = json.loads(line)
        white_first = game['opening']['fen'].split()[1] == 'w'
        own = collections.defaultdict(list)
        for ply, move in enumerate(game['moves']):
            mover = game['white'] if white_first == (ply % 2 == 0) else game['black']
            time_by_move[mover][ply // 2 + 1] += move['time_used_ms']
            if FIRST <= ply // 2 + 1 <= LAST:
                own[mover].append((move['time_used_ms'], move['nodes']))
        for engine, moves in own.items():
            if len(moves) < 10:
                continue
            time_median = statistics.median(t for t, _ in moves) or 1
            nodes_median = statistics.median(n for _, n in moves) or 1
            ratios[engine][0].extend(t / time_median for t, _ in moves)
            ratios[engine][1].extend(n / nodes_median for _, n in moves)
    header = ' / '.join(f'{q:.0%}' for q in QUANTILES)
    print(f'| engine | moves | time ÷ game median: {header} | share under 0.6 | tree ÷ game median: {header} |')
    print('|---|---|---|---|---|')
    for engine, (times, trees) in sorted(ratios.items()):
        def cut(values):
            ordered = sorted(values)
            return ' / '.join(f'{ordered[int(q * len(ordered))]:.2f}' for q in QUANTILES)
        short = sum(r < 0.6 for r in times) / len(times)
        print(f'| {engine} | {len(times)} | {cut(times)} | {short:.1%} | {cut(trees)} |')
    print()
    print('| engine | share of its time spent by own move ' + ' / '.join(map(str, SHARE_BY)) + ' |')
    print('|---|---|')
    for engine, by_move in sorted(time_by_move.items()):
        total = sum(by_move.values()) or 1
        shares = [sum(t for m, t in by_move.items() if m <= last) / total for last in SHARE_BY]
        print(f'| {engine} | ' + ' / '.join(f'{share:.2f}' for share in shares) + ' |')


if __name__ == '__main__':
    main(sys.argv[1])
