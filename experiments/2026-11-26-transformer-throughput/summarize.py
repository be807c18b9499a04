#!/usr/bin/env python3
"""Means over the rounds of run.sh's results: one line per network and measurement."""
import sys
from collections import defaultdict

values = defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "results.txt"):
    words = line.split()
    if words[:1] == ["round"] and len(words) >= 5:
        values[(words[2], words[3])].append(float(words[4]))
for (net, key), numbers in values.items():
    mean = sum(numbers) / len(numbers)
    print(f"{net:26} {key:45} mean {mean:8.1f}  ({', '.join(f'{n:g}' for n in numbers)})")
