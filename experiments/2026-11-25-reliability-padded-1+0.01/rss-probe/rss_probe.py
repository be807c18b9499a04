#!/usr/bin/env python3
"""What makes an engine's resident memory grow over a match: one Kairos plays itself through UCI, game after
game (ucinewgame, an opening of the book, then `go nodes N` for each ply), and the probe prints the engine's
VmRSS after every game. Run it with different options or environments (NNCacheSize=0, Backend=uniform,
MALLOC_ARENA_MAX=2) to see which one flattens the curve.

usage: rss_probe.py KAIROS GAMES NODES PLIES [Option=Value ...] > probe.tsv
"""
import subprocess
import sys
from pathlib import Path

BOOK = Path(__file__).resolve().parents[4] / "shared" / "books" / "8mvs_+90_+99.epd"


def vm_rss_kb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def main():
    kairos, games, nodes, plies = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    options = sys.argv[5:]
    openings = [" ".join(line.split()[:4]) + " 0 1" for line in BOOK.read_text().splitlines() if line.strip()]
    engine = subprocess.Popen([kairos], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(command):
        engine.stdin.write(command + "\n")

    def wait_for(prefix):
        for line in engine.stdout:
            if line.startswith(prefix):
                return line.split()
        raise RuntimeError(f"engine exited before '{prefix}'")

    send("uci")
    wait_for("uciok")
    for option in options:
        name, value = option.split("=", 1)
        send(f"setoption name {name} value {value}")
    send("isready")
    wait_for("readyok")
    print("game\trss_kb", flush=True)
    for game in range(1, games + 1):
        send("ucinewgame")
        fen = openings[(game * 7919) % len(openings)]
        moves = []
        for _ in range(plies):
            send(f"position fen {fen} moves {' '.join(moves)}".rstrip())
            send(f"go nodes {nodes}")
            best = wait_for("bestmove")[1]
            if best in ("(none)", "0000"):
                break
            moves.append(best)
        send("isready")
        wait_for("readyok")
        print(f"{game}\t{vm_rss_kb(engine.pid)}", flush=True)
    send("quit")
    engine.wait()


if __name__ == "__main__":
    main()
