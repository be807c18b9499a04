#!/usr/bin/env python3
"""The pentanomial GSPRT's log-likelihood ratio in normalised Elo, computed without fishtest's fixed point.

The LLR of elo1 against elo0 is the difference of two profile log-likelihoods: the most likely distribution of
pair scores 0, 1/4, 1/2, 3/4, 1 whose normalised excess (mean - 1/2) / sd equals t, for t of each hypothesis
(t = nElo * sqrt(2) / (800 / ln 10), a pair's sd being the game's over sqrt(2)), evaluated on the counts. Empty
cells count 1e-3, as in fishtest. Here each maximisation is scipy's SLSQP on the simplex, started from the
counts, so the numbers check tools/src/stats/sprt.rs's fixed-point iteration by another route.

usage: sprt-llr-by-optimisation.py ELO0 ELO1 C0 C1 C2 C3 C4   (scipy 1.17.1, numpy 2.4)"""
import math
import sys

import numpy as np
from scipy.optimize import minimize

SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


def profile_log_likelihood(counts, t):
    """max Σ nᵢ ln pᵢ over pmfs p with (μ(p) − ½)/σ(p) = t."""
    def excess(p):
        mu = p @ SCORES
        sigma = math.sqrt(p @ (SCORES - mu) ** 2)
        return (mu - 0.5) - t * sigma

    constraints = [{"type": "eq", "fun": lambda p: p.sum() - 1.0}, {"type": "eq", "fun": excess}]
    start = counts / counts.sum()
    result = minimize(lambda p: -(counts @ np.log(p)), start, method="SLSQP", bounds=[(1e-12, 1.0)] * 5,
                      constraints=constraints, options={"ftol": 1e-15, "maxiter": 1000})
    assert result.success, result.message
    return counts @ np.log(result.x)


def main():
    elo0, elo1 = float(sys.argv[1]), float(sys.argv[2])
    counts = np.array([max(float(c), 1e-3) for c in sys.argv[3:8]])
    scale = 800 / math.log(10)
    t0, t1 = elo0 * math.sqrt(2) / scale, elo1 * math.sqrt(2) / scale
    print(f"{profile_log_likelihood(counts, t1) - profile_log_likelihood(counts, t0):.10f}")


if __name__ == "__main__":
    main()
