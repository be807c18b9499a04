#!/usr/bin/env python3
"""Search speed and memory per node of any UCI engine, measured the way #12 states its targets: the 10
positions of `kairos bench` (read from engine/src/bench.rs), each `go movetime MS` after `ucinewgame`, the
nodes and time of the last `info` line summed; then, with --memory-nodes N, one `go nodes N` from the start
position and the growth of the engine's resident memory divided by the nodes searched.

usage: uci_nps.py [--movetime MS] [--memory-nodes N] ENGINE [ARG ...] [-- Option=Value ...]
(--movetime 0 skips the speed part, warming up with one go nodes 100 instead)
"""
import re
import subprocess
import sys
import time
from pathlib import Path

BENCH_RS = Path(__file__).resolve().parents[2] / "engine" / "src" / "bench.rs"


def bench_fens():
    """The positions of `BENCH_POSITIONS` (bench.rs also holds lc0's 34 `benchmark` positions, after them)."""
    bench = BENCH_RS.read_text().split("pub const BENCH_POSITIONS")[1].split("];")[0]
    return re.findall(r'^\s*"([^"]+ [wb] [^"]+)",\s*$', bench, re.MULTILINE)


def vm_rss_kb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class Engine:
    def __init__(self, command, options):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.wait_for("uciok")
        for option in options:
            name, value = option.split("=", 1)
            self.send(f"setoption name {name} value {value}")
        self.ready()

    def send(self, command):
        self.process.stdin.write(command + "\n")

    def wait_for(self, prefix):
        lines = []
        for line in self.process.stdout:
            lines.append(line)
            if line.startswith("error"):
                raise RuntimeError(f"the engine said: {line.strip()}")
            if line.startswith(prefix):
                return lines
        raise RuntimeError(f"engine exited before '{prefix}'")

    def ready(self):
        self.send("isready")
        self.wait_for("readyok")

    def search(self, position, go):
        self.send("ucinewgame")
        self.send(f"position {position}")
        self.ready()
        started = time.monotonic()
        self.send(f"go {go}")
        lines = self.wait_for("bestmove")
        elapsed_ms = (time.monotonic() - started) * 1000
        info = [l.split() for l in lines if l.startswith("info") and " nodes " in l]
        nodes = int(info[-1][info[-1].index("nodes") + 1]) if info else 0
        return nodes, elapsed_ms


def main():
    args = sys.argv[1:]
    movetime, memory_nodes = 3000, 0
    while args and args[0].startswith("--"):
        flag, value = args[0], args[1]
        args = args[2:]
        if flag == "--movetime":
            movetime = int(value)
        elif flag == "--memory-nodes":
            memory_nodes = int(value)
        else:
            sys.exit(f"unknown flag {flag}")
    command, options = (args[: args.index("--")], args[args.index("--") + 1 :]) if "--" in args else (args, [])
    engine = Engine(command, options)
    total_nodes, total_ms = 0, 0.0
    if movetime == 0:
        engine.search(f"fen {bench_fens()[0]}", "nodes 100")
    for fen in bench_fens() if movetime else []:
        nodes, ms = engine.search(f"fen {fen}", f"movetime {movetime}")
        total_nodes += nodes
        total_ms += ms
        print(f"{nodes:>8} nodes {ms:8.0f} ms  {fen}", flush=True)
    if movetime:
        print(f"total: {total_nodes} nodes in {total_ms:.0f} ms, {total_nodes * 1000 / total_ms:.0f} nps", flush=True)
    if memory_nodes:
        before = vm_rss_kb(engine.process.pid)
        nodes, ms = engine.search("startpos", f"nodes {memory_nodes}")
        after = vm_rss_kb(engine.process.pid)
        print(f"memory: go nodes {memory_nodes} searched {nodes} nodes in {ms:.0f} ms; resident {before} -> {after} kB, "
              f"{(after - before) * 1024 / max(nodes, 1):.0f} bytes per node; "
              f"{after * 1024 / max(nodes, 1):.0f} bytes per node counting all resident memory", flush=True)
    engine.send("quit")
    engine.process.wait()


if __name__ == "__main__":
    main()
