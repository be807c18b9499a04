#!/usr/bin/env python3
"""Runs lc0 on the five Maia-1900 reference positions and records its root visit counts after `go nodes N`.

usage: capture-lc0-root-visits.py LC0 WEIGHTS maia1900-reference.json NODES MINIBATCH OUT [defaults] [--flag=value…]

With `defaults`, out-of-order evaluation and prefetching stay at lc0's defaults; smart pruning is off in both
modes, since it waits 200 ms of wall time after the first evaluation and would make the counts depend on
the machine's speed. Further `--flag=value` words are passed to lc0 (e.g. --contempt=100). Each position also
records the score and WDL of lc0's last `info` line (UCI_ShowWDL on).
"""
import json, subprocess, sys

lc0, weights, reference, nodes, minibatch, out = sys.argv[1:7]
lc0_defaults = "defaults" in sys.argv[7:]
extra_flags = [word for word in sys.argv[7:] if word.startswith("--")]
positions = json.load(open(reference))["positions"]
flags = ["--backend=blas", "--threads=1", f"--minibatch-size={minibatch}", "--smart-pruning-factor=0"]
if not lc0_defaults:
    flags += ["--max-prefetch=0", "--out-of-order-eval=false"]
flags += extra_flags
result = {
    "description": (
        f"Root visit counts of lc0 (master 909a4082, CPU blas backend, built on the project's CPU machine) "
        f"searching maia-1900.pb.gz with `go nodes {nodes}` and the flags below (one search thread gathering "
        f"batches of {minibatch}), all other options at lc0's defaults; each position in a fresh process. "
        "'root' is the root's N; 'visits' maps each visited root move (standard UCI) to its N, read from "
        "VerboseMoveStats."),
    "flags": flags,
    "nodes": int(nodes),
    "positions": {},
}
for name, position in positions.items():
    moves = position.get("moves", [])
    script = "uci\nsetoption name VerboseMoveStats value true\nsetoption name UCI_ShowWDL value true\nisready\n"
    script += f"position fen {position['fen']}" + (" moves " + " ".join(moves) if moves else "")
    script += f"\ngo nodes {nodes}\n"
    proc = subprocess.Popen([lc0, f"--weights={weights}"] + flags, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    proc.stdin.write(script)
    proc.stdin.flush()
    visits, root, last_info = {}, None, None
    for line in proc.stdout:
        words = line.split()
        if line.startswith("info depth"):
            last_info = words
        if line.startswith("bestmove"):
            bestmove = words[1]
            break
        if line.startswith("info string") and "N:" in words:
            n = int(words[words.index("N:") + 1])
            if words[2] == "node":
                root = n
            elif n > 0:
                visits[words[2]] = n
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait()
    result["positions"][name] = {"fen": position["fen"], "moves": moves, "bestmove": bestmove,
                                 "root": {"N": root}, "visits": visits,
                                 "score": " ".join(last_info[last_info.index("score") + 1:][:2]),
                                 "wdl": [int(x) for x in last_info[last_info.index("wdl") + 1:][:3]]}
json.dump(result, open(out, "w"), indent=1)
