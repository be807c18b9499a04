#!/usr/bin/env python3
"""Clock trajectories of a smooth-style budget under a moves-left curve, replayed over real game lengths.

Each move spends (clock + increment*(m - 1) - overhead)/m of the clock, m the curve's moves left, as smooth's
average move does; the game lengths are those of the 260 games of 2026-11-23 (book included). Prints, per
curve, the mean clock left at the end of the games longer than the median (share of the base) and the
coefficient of variation of the spend over the engine's own moves 10-60 after the 8-move book (full moves
18-68, match-report's window). It chose the curve of the 2026-11-24 runs
(EXPERIMENTS.md); with mle-legacy(midpoint=72) it gives 9.6 % left, as that curve's real games did.
Run from this directory: python3 simulate_clock.py
"""
import json
import math
import statistics as st

RUNS = ["../2026-11-23-nodes-vs-legacy-10+0.1/results.jsonl", "../2026-11-23-nodes-vs-legacy-10+0.1-wall/results.jsonl"]
BOOK_PLIES = 16
BASE_MS, INCREMENT_MS, OVERHEAD_MS = 10000, 100, 200


def game_lengths():
    lengths = []
    for path in RUNS:
        with open(path) as results:
            for line in results:
                lengths.append((BOOK_PLIES + len(json.loads(line)["moves"])) // 2)
    return lengths


def mle_legacy(moves, midpoint, steepness):
    return midpoint * (1 + 2 * (moves / midpoint) ** steepness) ** (1 / steepness) - moves


def simulate(moves_left, lengths):
    median = st.median(lengths)
    left_at_end, spends = [], []
    for length in lengths:
        clock = BASE_MS
        for move in range(BOOK_PLIES // 2, length):
            m = max(moves_left(move), 1.0)
            spend = max(0.0, (clock + INCREMENT_MS * (m - 1) - OVERHEAD_MS) / m)
            spend = min(spend, clock - OVERHEAD_MS / 2) if clock > OVERHEAD_MS else min(spend, clock / 2)
            if 18 <= move <= 68:
                spends.append(spend)
            clock += INCREMENT_MS - spend
        if length > median:
            left_at_end.append(clock / BASE_MS)
    return st.mean(left_at_end), st.pstdev(spends) / st.mean(spends)


def main():
    lengths = game_lengths()
    print(f"{len(lengths)} games, median {st.median(lengths)} moves")
    print("midpoint steepness  left-in-long-games  spend-CV-18-68")
    for midpoint in (58, 60, 62, 64, 66, 68, 70, 72):
        for steepness in (5, 7, 10, 14, 20):
            left, cv = simulate(lambda m: mle_legacy(m, midpoint, steepness), lengths)
            print(f"{midpoint:8} {steepness:9}  {100 * left:17.1f} %  {cv:14.3f}")


if __name__ == "__main__":
    main()
