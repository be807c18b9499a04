#!/usr/bin/env python3
"""Whether lc0's default task workers change its searches under the `random` backend, and whether they repeat.

usage: run.py LC0 WEIGHTS POSITIONS NODES ROUNDS > results.txt

For each position of POSITIONS (a reference file of positions), lc0 searches `go nodes NODES` at one search thread
with smart pruning off and VerboseMoveStats on: ROUNDS times at its defaults (TaskWorkers -1: task workers on a
non-CPU backend, `random` included, one a search thread on two cores; the random backend's minibatch of 256 and
MaxPrefetch 32) and once with `--task-workers=0`. Prints per position whether each default run
gave the info strings and bestmove of the first, and whether the first gave those of `--task-workers=0`.
"""
import json, subprocess, sys

lc0, weights, positions_file, nodes, rounds = sys.argv[1:6]
positions = json.load(open(positions_file))["positions"]
base = [lc0, f"--weights={weights}", "--backend=random", "--threads=1", "--smart-pruning-factor=0"]


def search(position, extra):
    moves = position.get("moves", [])
    script = "uci\nsetoption name VerboseMoveStats value true\nisready\n"
    script += f"position fen {position['fen']}" + (" moves " + " ".join(moves) if moves else "")
    script += f"\ngo nodes {nodes}\n"
    proc = subprocess.Popen(base + extra, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    proc.stdin.write(script)
    proc.stdin.flush()
    lines = []
    for line in proc.stdout:
        if line.startswith("info string"):
            lines.append(line)
        if line.startswith("bestmove"):
            lines.append(line)
            break
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait()
    return lines


print(f"lc0 {' '.join(base[2:])}, go nodes {nodes}, {rounds} default runs and one --task-workers=0 a position")
repeat_all, zero_all = 0, 0
for name, position in positions.items():
    defaults = [search(position, []) for _ in range(int(rounds))]
    zero = search(position, ["--task-workers=0"])
    repeats = sum(run == defaults[0] for run in defaults[1:])
    same_as_zero = defaults[0] == zero
    repeat_all += repeats == len(defaults) - 1
    zero_all += same_as_zero
    best = [run[-1].split()[1] for run in defaults]
    print(f"{name}: default runs equal to the first {repeats}/{len(defaults) - 1}, bestmoves {' '.join(best)}; "
          f"first default run equal to --task-workers=0 ({zero[-1].split()[1]}): {same_as_zero}")
print(f"positions whose default runs all repeated: {repeat_all}/{len(positions)}; "
      f"whose first default run equals --task-workers=0: {zero_all}/{len(positions)}")
