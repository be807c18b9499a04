#!/usr/bin/env python3
"""Efficiency per round from run.sh's output (stdin or a file): search nps ÷ `backendbench` evaluations/s at
batch 32, for bench's 1,000-node trees and for #12's UCI searches, in fp32 and bf16, with each measure's mean
and median over the rounds; Kairos's UCI nps ÷ lc0's where lc0 ran, and ÷ the OLD binary's where it ran."""
import statistics
import sys
from collections import defaultdict

values = defaultdict(dict)
for line in (open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin):
    parts = line.split()
    if len(parts) == 4 and parts[0] == "round":
        values[int(parts[1])][parts[2]] = float(parts[3])

rows = {
    "bench/backendbench32 fp32": ("bench-fp32", "backendbench32-fp32"),
    "bench/backendbench32 bf16": ("bench-bf16", "backendbench32-bf16"),
    "uci/backendbench32 fp32": ("uci-fp32", "backendbench32-fp32"),
    "uci/backendbench32 bf16": ("uci-bf16", "backendbench32-bf16"),
    "uci fp32 / lc0": ("uci-fp32", "uci-lc0"),
    "uci bf16 / lc0": ("uci-bf16", "uci-lc0"),
    "uci old fp32 / lc0": ("uci-old-fp32", "uci-lc0"),
    "uci old bf16 / lc0": ("uci-old-bf16", "uci-lc0"),
    "uci fp32 / old": ("uci-fp32", "uci-old-fp32"),
    "uci bf16 / old": ("uci-bf16", "uci-old-bf16"),
    "backendbench32 bf16 / old": ("backendbench32-bf16", "old-backendbench32-bf16"),
}
print(f"{'ratio':<28} {'per round':<48} {'mean':>6} {'median':>6}")
for name, (numerator, denominator) in rows.items():
    ratios = [r[numerator] / r[denominator] for r in values.values() if numerator in r and denominator in r]
    if ratios:
        shown = " ".join(f"{x:.2f}" for x in ratios)
        print(f"{name:<28} {shown:<48} {statistics.mean(ratios):6.2f} {statistics.median(ratios):6.2f}")
for key in sorted({k for r in values.values() for k in r}):
    series = [r[key] for r in values.values() if key in r]
    print(f"{key:<28} {' '.join(f'{x:.0f}' for x in series):<48} {statistics.mean(series):6.0f} {statistics.median(series):6.0f}")
