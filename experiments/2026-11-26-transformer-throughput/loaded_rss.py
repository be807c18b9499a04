#!/usr/bin/env python3
"""Resident memory of a UCI engine once its network is loaded and has evaluated one position: start the engine,
`isready`, `go nodes 1` from the start position, then read VmRSS.

usage: loaded_rss.py ENGINE [ARG ...]   (prints "rss_kb N")
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


process.stdin.write("uci\nisready\n")
until("readyok")
process.stdin.write("position startpos\ngo nodes 1\n")
until("bestmove")
status = Path(f"/proc/{process.pid}/status").read_text().splitlines()
print("rss_kb", next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")))
process.stdin.write("quit\n")
process.wait()
