#!/usr/bin/env python3
"""How often a manager's moves end by each stop reason, replaying finished games of a `kairos match` through UCI.

For each chosen game the engine plays the named side again: before each of that side's moves it gets the game's
position (opening FEN plus the moves played) and the clocks the match had at that point, on the virtual clock, so
its time manager sees the game as it was (its own moves may differ; the game's moves are what it is given). The
`info string tm …` line of each move says why the search stopped and how long it took against its deadline; the
script counts the reasons and sums the times.

usage: extension_rate.py KAIROS RESULTS.jsonl[.gz] NAME MANAGER [GAMES] [NPS]
"""
import gzip
import json
import re
import subprocess
import sys
from collections import Counter


def replay(kairos, game, name, manager, nps):
    fen = game["opening"]["fen"]
    white_first = fen.split()[1] == "w"
    side = 0 if (game["white"] == name) == white_first else 1  # 0: the side that moves first from the FEN
    tc = game["white_time_control"]
    base, inc = tc.split("+")
    base_ms, inc_ms = int(float(base) * 1000), int(float(inc) * 1000)
    clocks = [base_ms, base_ms]
    engine = subprocess.Popen([kairos], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(line):
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def read_until(prefix):
        seen = []
        while True:
            line = engine.stdout.readline()
            if not line:
                raise RuntimeError(f"the engine ended before '{prefix}'")
            seen.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return seen

    for line in [
        f"setoption name TimeManager value {manager}",
        "setoption name VirtualClock value true",
        f"setoption name VirtualNps value {nps}",
        "setoption name Threads value 1",
        "setoption name Precision value fp32",
        "ucinewgame",
        "isready",
    ]:
        send(line)
    read_until("readyok")
    played = []
    reasons = []
    for ply, move in enumerate(game["moves"]):
        mover = ply % 2  # 0: the side that moves first from the FEN
        colour_is_white = (mover == 0) == white_first
        if mover == side:
            own, other = clocks[mover], clocks[1 - mover]
            wtime, btime = (own, other) if colour_is_white else (other, own)
            moves = (" moves " + " ".join(played)) if played else ""
            send(f"position fen {fen}{moves}")
            send(f"go wtime {wtime} btime {btime} winc {inc_ms} binc {inc_ms}")
            output = read_until("bestmove")
            if not any(line.startswith("info string tm ") for line in output):
                output += read_until("info string tm ")  # the trace follows the best move
            pattern = r"info string tm .* deadline (\d+) used (\d+) \((.*)\)$"
            found = [m.groups() for line in output if (m := re.match(pattern, line))]
            assert len(found) == 1, f"one trace a move: {output}"
            deadline, used, reason = found[0]
            reasons.append((int(deadline), int(used), reason))
        clocks[mover] = move["clock_left_ms"]
        played.append(move["uci"])
    send("quit")
    engine.wait()
    return reasons


def main():
    kairos, results, name, manager = sys.argv[1:5]
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 4
    nps = sys.argv[6] if len(sys.argv) > 6 else "1400"
    opener = gzip.open if results.endswith(".gz") else open
    with opener(results, "rt") as lines:
        games = [json.loads(line) for line in lines][:count]
    tally = Counter()
    used_total = deadline_total = 0
    for game in games:
        for deadline, used, reason in replay(kairos, game, name, manager, nps):
            tally[re.sub(r"\d+ ms", "N ms", reason)] += 1
            used_total += used
            deadline_total += deadline
    total = sum(tally.values())
    print(f"{total} moves of {name} ({manager}) replayed from {len(games)} games of {results}")
    for reason, n in tally.most_common():
        print(f"{n:5d}  {100.0 * n / total:5.1f} %  {reason}")
    print(f"time used / deadline, summed over the moves: {used_total / deadline_total:.3f}")


if __name__ == "__main__":
    main()
