#!/usr/bin/env python3
"""Where a manager and legacy cross: a straight line of Elo in log nodes a move through several matches.

usage: crossover.py [--at NODES] [--resamples N] [--seed S] NODES:RESULTS.jsonl[.gz]:ENGINE ...

Each match gives ENGINE's mean score over its whole opening pairs (one opening, both colours) and logistic Elo,
with the Elo's variance from the pairs by the delta method (dElo/ds = 400 / (ln 10 · s · (1 − s))). The line
Elo = a + b · ln(nodes) is fitted by least squares weighted by the inverse variances; the crossover is where it is
0, exp(−a / b), and the line's Elo at --at (regime's switch, 1,000 by default) is printed too. Their 95 % intervals
come from a bootstrap that resamples each match's pairs; a resample whose slope is not negative has no crossover
in the usual sense and is counted apart. The matches are independent games; playing the same openings in the same
order only makes them comparable.
"""
import argparse
import gzip
import json
import math
import random

from sprt import elo_of
from trajectory import RESULT


def pair_scores(path, engine):
    """ENGINE's score (0 to 1) in each whole opening pair of a match."""
    opener = gzip.open if path.endswith('.gz') else open
    pairs = {}
    with opener(path, 'rt') as file:
        for line in file:
            if not line.strip():
                continue
            game = json.loads(line)
            white = RESULT[game['result']]
            points = white if game['white'] == engine else 1 - white
            pairs.setdefault(game['pair_id'], []).append(points)
    return [sum(p) / 2 for p in pairs.values() if len(p) == 2]


def elo_and_variance(scores):
    """Logistic Elo of the mean score and its variance by the delta method."""
    n = len(scores)
    mean = sum(scores) / n
    variance = sum((s - mean) ** 2 for s in scores) / (n - 1) / n
    slope = 400 / (math.log(10) * mean * (1 - mean))
    return elo_of(mean), slope * slope * variance


def fit(points):
    """Weighted least squares of Elo on ln(nodes): (a, b) for points of (nodes, Elo, variance)."""
    weights = [1 / v for _, _, v in points]
    xs = [math.log(n) for n, _, _ in points]
    total = sum(weights)
    x_mean = sum(w * x for w, x in zip(weights, xs)) / total
    y_mean = sum(w * y for w, (_, y, _) in zip(weights, points)) / total
    sxx = sum(w * (x - x_mean) ** 2 for w, x in zip(weights, xs))
    sxy = sum(w * (x - x_mean) * (y - y_mean) for w, x, (_, y, _) in zip(weights, xs, points))
    b = sxy / sxx
    return y_mean - b * x_mean, b


def percentile(sorted_values, fraction):
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('matches', nargs='+', help='NODES:RESULTS:ENGINE')
    parser.add_argument('--at', type=float, default=1000.0)
    parser.add_argument('--resamples', type=int, default=4000)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    matches = []
    for spec in args.matches:
        nodes, path, engine = spec.split(':', 2)
        matches.append((float(nodes), path, pair_scores(path, engine)))
    if len({n for n, _, _ in matches}) < 2:
        parser.error('the line needs matches at two or more node counts')

    print('| nodes a move | pairs | score | Elo (95 %) | match |')
    print('|---|---|---|---|---|')
    points = []
    for nodes, path, scores in matches:
        elo, variance = elo_and_variance(scores)
        points.append((nodes, elo, variance))
        spread = 1.96 * math.sqrt(variance)
        print(f'| {nodes:g} | {len(scores)} | {sum(scores) / len(scores):.3f} | {elo:+.1f} '
              f'({elo - spread:+.1f} to {elo + spread:+.1f}) | {path} |')
    a, b = fit(points)
    print(f'\nline: Elo = {a:+.1f} {b:+.1f} · ln(nodes); {b * math.log(2):+.1f} Elo a doubling')

    rng = random.Random(args.seed)
    crossings, at_switch, flat = [], [], 0
    for _ in range(args.resamples):
        resampled = []
        for nodes, _, scores in matches:
            draw = [rng.choice(scores) for _ in scores]
            if 0 < sum(draw) < len(draw):
                resampled.append((nodes, *elo_and_variance(draw)))
        ra, rb = fit(resampled)
        at_switch.append(ra + rb * math.log(args.at))
        if rb < 0:
            crossings.append(math.exp(-ra / rb))
        else:
            flat += 1
    crossings.sort()
    at_switch.sort()
    at = a + b * math.log(args.at)
    print(f'Elo at {args.at:g} nodes: {at:+.1f} (95 %: {percentile(at_switch, 0.025):+.1f} to '
          f'{percentile(at_switch, 0.975):+.1f})')
    if b < 0:
        print(f'crossover: {math.exp(-a / b):.0f} nodes a move', end='')
        if crossings:
            print(f' (95 %: {percentile(crossings, 0.025):.0f} to {percentile(crossings, 0.975):.0f})', end='')
        print()
    else:
        print('crossover: none (the fitted slope is not negative)')
    print(f'{flat} of {args.resamples} resamples had a slope that is not negative')


if __name__ == '__main__':
    main()
