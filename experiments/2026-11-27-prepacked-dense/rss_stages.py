#!/usr/bin/env python3
"""Resident memory of a UCI engine at three points: after `isready` (the network loaded; Kairos also runs its
0.2 s speed calibration there), after `go nodes 1` and after `go nodes 2000` from the start position.

usage: rss_stages.py ENGINE [ARG ...]   (prints "isready KB nodes1 KB nodes2000 KB")
"""
import subprocess
import sys
from pathlib import Path

process = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True, bufsize=1)


def until(prefix):
    for line in process.stdout:
        if line.startswith(prefix):
            return
    sys.exit(f"the engine exited before '{prefix}'")


def rss_kb():
    status = Path(f"/proc/{process.pid}/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


process.stdin.write("uci\nisready\n")
until("readyok")
ready = rss_kb()
process.stdin.write("position startpos\ngo nodes 1\n")
until("bestmove")
one = rss_kb()
process.stdin.write("position startpos\ngo nodes 2000\n")
until("bestmove")
print("isready", ready, "nodes1", one, "nodes2000", rss_kb())
process.stdin.write("quit\n")
process.wait()
