#!/usr/bin/env python3
"""A match's SPRT state for one engine, from its results.jsonl(.gz): W/D/L, the pentanomial over whole pairs,
Elo with its 95 % interval over the pairs, and two log-likelihood ratios of elo1 against elo0:
- logistic Elo in the normal approximation over the pairs: LLR = N·(s1 − s0)·(2m − s0 − s1) / (2σ²), m and σ²
  the mean and variance of a pair's score per game;
- the runner's own, on which `kairos match --sprt` stops: normalised Elo, the pentanomial GSPRT of fishtest and
  fastchess (tools/src/stats/sprt.rs). Normalised elo1 = 10 lies nearer 0 in logistic Elo than logistic
  elo1 = 10 at these draw rates, so the runner's LLR moves more slowly than the first.
usage: sprt.py RESULTS ENGINE [--games N] [--after K] [--elo0 0] [--elo1 10]"""
import argparse
import gzip
import json
import math


def score_of(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of(score):
    return -400 * math.log10(1 / score - 1)


def secular_root(pmf, x):
    """Root θ of Σ pᵢxᵢ/(1 + θxᵢ) = 0 between −1/max x and −1/min x, by bisection."""
    low, high = -1 / max(x), -1 / min(x)
    for _ in range(200):
        middle = (low + high) / 2
        if sum(p * xi / (1 + middle * xi) for p, xi in zip(pmf, x)) > 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def normalized_llr(pentanomial, elo0, elo1):
    """The pentanomial GSPRT in normalised Elo, as tools/src/stats/sprt.rs computes it (empty cells 1e-3, ten
    fixed-point rounds of the constrained maximum-likelihood pmf)."""
    cells = [max(count, 1e-3) for count in pentanomial]
    total = sum(cells)
    pmf = [count / total for count in cells]
    values = [k / 4 for k in range(5)]

    def pmf_with_t(t):
        guess = [0.2] * 5
        for _ in range(10):
            mu = sum(p * a for p, a in zip(guess, values))
            sigma = math.sqrt(sum(p * (a - mu) ** 2 for p, a in zip(guess, values)))
            phi = [a - 0.5 - t * sigma * (1 + ((a - mu) / sigma) ** 2) / 2 for a in values]
            theta = secular_root(pmf, phi)
            guess = [p / (1 + theta * x) for p, x in zip(pmf, phi)]
        return guess

    scale = 800 / math.log(10)
    pmf0 = pmf_with_t(elo0 / scale * math.sqrt(2))
    pmf1 = pmf_with_t(elo1 / scale * math.sqrt(2))
    return total * sum(p * math.log(b / a) for p, a, b in zip(pmf, pmf0, pmf1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("engine")
    parser.add_argument("--games", type=int, default=None, help="only the first N games")
    parser.add_argument("--after", type=int, default=0,
                        help="only the games after the first K (a test declared after K games had been seen)")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=10.0)
    args = parser.parse_args()
    opener = gzip.open if args.results.endswith(".gz") else open
    with opener(args.results, "rt") as file:
        games = [json.loads(line) for line in file if line.strip()]
    games = games[args.after : args.games]
    wins = draws = losses = 0
    pairs = {}
    for game in games:
        if game["result"] == "Draw":
            points = 0.5
        else:
            winner = game["white"] if game["result"] == "WhiteWins" else game["black"]
            points = 1.0 if winner == args.engine else 0.0
        wins += points == 1.0
        draws += points == 0.5
        losses += points == 0.0
        pairs.setdefault(game["pair_id"], []).append(points)
    whole = [sum(p) for p in pairs.values() if len(p) == 2]
    pentanomial = [whole.count(k / 2) for k in range(5)]
    n = len(whole)
    mean = sum(whole) / (2 * n)
    variance = sum((p / 2 - mean) ** 2 for p in whole) / n
    s0, s1 = score_of(args.elo0), score_of(args.elo1)
    llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    half_width = 1.96 * math.sqrt(variance / n)
    bound = math.log((1 - 0.05) / 0.05)
    print(f"{len(games)} games: {args.engine} W {wins}, D {draws}, L {losses}, "
          f"{(wins + draws / 2) / len(games):.1%}")
    print(f"{n} whole pairs, pentanomial {pentanomial}: Elo {elo_of(mean):+.1f} "
          f"(95 %: {elo_of(mean - half_width):+.1f} to {elo_of(mean + half_width):+.1f})")
    print(f"LLR {llr:+.2f} (elo0 {args.elo0:g}, elo1 {args.elo1:g}; bounds ±{bound:.2f})")
    runner = normalized_llr(pentanomial, args.elo0, args.elo1)
    print(f"the runner's LLR {runner:+.2f} (normalised Elo {args.elo0:g} against {args.elo1:g}, on which "
          f"`kairos match --sprt` stops)")


if __name__ == "__main__":
    main()
