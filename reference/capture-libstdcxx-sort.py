#!/usr/bin/env python3
"""Records how libstdc++'s std::sort and std::partial_sort order elements that compare equal: the orders that lc0
(built with GCC here) gives its edges when priors tie (node.cc, SortEdges) and its VerboseMoveStats lines when
visits and scores tie (search.cc, GetVerboseStats).

usage: capture-libstdcxx-sort.py OUT

Compiles a small C++ program with the system g++ and feeds it seeded random cases: 16-bit keys, few distinct
values so that many tie, at sizes around the 16 elements where std::sort switches from introsort to insertion
sort and up to 218 (the most legal moves of a chess position). For each case the program sorts (key, index) pairs
on the key alone, highest first (lc0's `a.p_ > b.p_`), with std::sort ("sort"), with
std::partial_sort(first, last, last) ("heap", the heap sort std::sort falls back to when its recursion gets too
deep) and with std::partial_sort(first, first + K, last) ("partial K", as lc0 ranks its MultiPV lines), and prints
the indices in the order the sort leaves them.
"""
import json, os, random, subprocess, sys, tempfile

PROGRAM = r"""
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string mode;
    size_t middle = 0;
    in >> mode;
    if (mode == "partial") in >> middle;
    std::vector<std::pair<unsigned, unsigned>> items;
    for (unsigned key; in >> key;) items.emplace_back(key, items.size());
    auto higher = [](const auto& a, const auto& b) { return a.first > b.first; };
    if (mode == "sort") std::sort(items.begin(), items.end(), higher);
    else if (mode == "heap") std::partial_sort(items.begin(), items.end(), items.end(), higher);
    else std::partial_sort(items.begin(), items.begin() + std::min(middle, items.size()), items.end(), higher);
    for (size_t i = 0; i < items.size(); ++i) std::cout << (i ? " " : "") << items[i].second;
    std::cout << "\n";
  }
}
"""

out = sys.argv[1]
rng = random.Random(1858)
cases = []
for size in list(range(0, 41)) + [47, 64, 100, 150, 218]:
    for distinct in (1, 2, 3, 5, 12, 1000):
        keys = [rng.randrange(distinct) * 37 for _ in range(size)]
        cases.append(keys)
# Priors as lc0 stores them, sorted or nearly (a network's priors arrive in move order, which is unsorted).
for size in (20, 33, 45):
    keys = sorted(rng.randrange(30000, 32000) for _ in range(size))
    cases.append(keys)
    cases.append(keys[::-1])

with tempfile.TemporaryDirectory() as scratch:
    source, binary = os.path.join(scratch, "sort.cc"), os.path.join(scratch, "sort")
    open(source, "w").write(PROGRAM)
    subprocess.run(["g++", "-O2", "-std=c++17", source, "-o", binary], check=True)
    compiler = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    records = []
    for mode in ("sort", "heap", "partial 1", "partial 3", "partial 4", "partial 5"):
        chosen = cases if mode in ("sort", "heap") else [keys for keys in cases if len(keys) <= 64]
        script = "".join(f"{mode} {' '.join(map(str, keys))}\n" for keys in chosen)
        orders = subprocess.run([binary], input=script, capture_output=True, text=True, check=True).stdout
        for keys, order in zip(chosen, orders.splitlines()):
            records.append({"mode": mode, "keys": keys, "order": [int(i) for i in order.split()]})

json.dump({
    "description": ("libstdc++'s std::sort ('sort'), std::partial_sort(first, last, last) ('heap') and "
                    "std::partial_sort(first, first + K, last) ('partial K') of (key, index) pairs compared on the "
                    "key alone, highest first; 'order' lists the indices in the order the sort leaves them. "
                    f"Compiled by {compiler}, the compiler lc0 was built with; by capture-libstdcxx-sort.py."),
    "cases": records,
}, open(out, "w"))
