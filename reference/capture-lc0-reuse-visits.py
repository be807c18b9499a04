#!/usr/bin/env python3
"""Records lc0's root visits after a search that reuses the tree of the search before it, two plies earlier.

usage: capture-lc0-reuse-visits.py LC0 WEIGHTS POSITIONS.json FIRST SECOND OUT

For each position, in one lc0 process: `go nodes FIRST`, then the position after lc0's best move and its ponder
move, `go nodes SECOND` (lc0 counts the reused visits toward it). Strictly sequential (one thread, minibatch 1,
no prefetch or out-of-order evaluation, smart pruning off), VerboseMoveStats read after the second search.
Repetitions two plies into the first tree are two-fold draws there whose first occurrence lies before the new
root: lc0 reverts them only when its picker reaches them (EnsureNodeTwoFoldCorrectForDepth), so their draws
stay in the parents' values until then.
"""
import json, subprocess, sys

lc0, weights, positions_file, first, second, out = sys.argv[1:7]
flags = ["--backend=blas", "--threads=1", "--minibatch-size=1", "--smart-pruning-factor=0", "--max-prefetch=0",
         "--out-of-order-eval=false"]
positions = json.load(open(positions_file))["positions"]
result = {
    "description": (
        "Root visit counts of lc0 (master 909a4082, CPU blas backend) searching maia-1900.pb.gz strictly "
        f"sequentially: `go nodes {first}`, then the position after its best move and ponder move, `go nodes "
        f"{second}` on the reused tree; 'visits' maps each visited root move of the second search to its N "
        "(VerboseMoveStats), 'reply' holds the two moves played between the searches."),
    "flags": flags,
    "first": int(first),
    "second": int(second),
    "positions": {},
}


def search(proc, nodes):
    """Sends go nodes and returns (bestmove, ponder, root N, visits) from the verbose output."""
    proc.stdin.write(f"go nodes {nodes}\n")
    proc.stdin.flush()
    visits, root = {}, None
    for line in proc.stdout:
        words = line.split()
        if line.startswith("bestmove"):
            return words[1], words[3] if len(words) > 3 else None, root, visits
        if line.startswith("info string") and "N:" in words:
            n = int(words[words.index("N:") + 1])
            if words[2] == "node":
                root = n
            elif n > 0:
                visits[words[2]] = n
    raise RuntimeError("lc0 ended without a bestmove")


for name, position in positions.items():
    moves = position.get("moves", [])
    proc = subprocess.Popen([lc0, f"--weights={weights}"] + flags, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    proc.stdin.write("uci\nsetoption name VerboseMoveStats value true\nisready\n")
    start = f"position fen {position['fen']}" + (" moves " + " ".join(moves) if moves else "")
    proc.stdin.write(start + "\n")
    best, ponder, _, _ = search(proc, first)
    proc.stdin.write(start + (" moves " if not moves else " ") + f"{best} {ponder}\n")
    bestmove, _, root, visits = search(proc, second)
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait()
    result["positions"][name] = {"fen": position["fen"], "moves": moves + [best, ponder], "reply": [best, ponder],
                                 "bestmove": bestmove, "root": {"N": root}, "visits": visits}
json.dump(result, open(out, "w"), indent=1)
