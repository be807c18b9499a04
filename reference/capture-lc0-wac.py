#!/usr/bin/env python3
"""Runs lc0 on the 300 Win At Chess positions and records its best move after `go nodes N`.

usage: capture-lc0-wac.py LC0 WEIGHTS wac.epd NODES OUT

One lc0 process, one search thread gathering batches of 32 (Kairos's CPU minibatch), smart pruning off (it waits
200 ms of wall time, so its stops depend on the machine), every other option at lc0's defaults; `ucinewgame`
before each position.
"""
import json, subprocess, sys

lc0, weights, suite, nodes, out = sys.argv[1:6]
flags = ["--backend=blas", "--threads=1", "--minibatch-size=32", "--smart-pruning-factor=0"]
process = subprocess.Popen([lc0, f"--weights={weights}", *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)


def send(line):
    process.stdin.write(line + "\n")
    process.stdin.flush()


def wait_for(prefix):
    for line in process.stdout:
        if line.startswith(prefix):
            return line.strip()
    sys.exit("lc0 exited before '" + prefix + "'")


send("uci")
wait_for("uciok")
positions = {}
for line in open(suite):
    if not line.strip():
        continue
    fields = line.split()
    fen = " ".join(fields[:4]) + " 0 1"
    name = line.split('id "')[1].split('"')[0]
    send("ucinewgame")
    send("position fen " + fen)
    send(f"go nodes {nodes}")
    positions[name] = {"fen": fen, "bestmove": wait_for("bestmove").split()[1]}
send("quit")
result = {
    "description": (f"lc0's best move (master 909a4082, CPU blas backend, built on the project's CPU machine) for "
                    f"each WAC position after `go nodes {nodes}` with the flags below, searching maia-1900.pb.gz."),
    "flags": flags,
    "nodes": int(nodes),
    "positions": positions,
}
json.dump(result, open(out, "w"), indent=1)
