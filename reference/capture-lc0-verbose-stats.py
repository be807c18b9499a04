#!/usr/bin/env python3
"""Runs lc0 and records its `info` lines for `go nodes N` (1 unless NODES is given) on the positions of a reference
file (the five Maia-1900 reference positions, or another file of the same form).

usage: capture-lc0-verbose-stats.py LC0 WEIGHTS POSITIONS OUT [NODES [FLAG...]]

FLAGs are added after the sequential flags below and override them (lc0 takes the last value of a flag), e.g.
`--backend=random --backend-opts=uniform=true` for lc0's uniform priors and zero values.
"""
import json, os, subprocess, sys

lc0, weights, reference, out = sys.argv[1:5]
nodes = sys.argv[5] if len(sys.argv) > 5 else "1"
extra = sys.argv[6:]
positions = json.load(open(reference))["positions"]
flags = ["--backend=blas", "--threads=1", "--minibatch-size=1", "--max-prefetch=0",
         "--out-of-order-eval=false", "--smart-pruning-factor=0"] + extra
result = {
    "description": (
        f"lc0's own UCI output (master 909a4082, CPU blas backend, OpenBLAS 0.3.21, unless the flags name another) "
        f"for `go nodes {nodes}` with {os.path.basename(weights)} on the positions of {os.path.basename(reference)}, "
        "with UCI_ShowWDL and "
        "VerboseMoveStats on and the flags below; 'lines' are the info lines before bestmove, with the "
        "`time` field removed. Numbers that come from the network can differ from another backend's in the "
        "last printed digit (lc0's blas and eigen backends differ by up to 3.9e-5 in the logits, and priors "
        "are stored in 16 bits)."),
    "flags": flags,
    "positions": {},
}
for name, position in positions.items():
    fen = position["fen"]
    moves = position.get("moves", [])
    script = "uci\nsetoption name UCI_ShowWDL value true\nsetoption name VerboseMoveStats value true\nisready\n"
    script += f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "") + f"\ngo nodes {nodes}\n"
    proc = subprocess.Popen([lc0, f"--weights={weights}"] + flags, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    proc.stdin.write(script)
    proc.stdin.flush()
    lines = []
    for line in proc.stdout:
        line = line.rstrip("\n")
        if line.startswith("bestmove"):
            bestmove = line
            break
        if line.startswith("info"):
            words = line.split(" ")
            if "time" in words and not line.startswith("info string"):
                i = words.index("time")
                del words[i:i + 2]
            lines.append(" ".join(words))
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait()
    result["positions"][name] = {"fen": fen, "moves": moves, "lines": lines, "bestmove": bestmove}
json.dump(result, open(out, "w"), indent=1)
