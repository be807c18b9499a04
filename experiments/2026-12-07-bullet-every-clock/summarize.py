#!/usr/bin/env python3
"""Time losses and clock margins of a fastchess PGN: per engine, games, losses on time, the least clock left after
any of its moves, and its longest move. The clock is rebuilt from the TimeControl tag (fastchess writes "1",
"40/1" or "1+0.01", seconds) and each move's time in its comment ("{+0.31/3 0.025s}").
usage: summarize.py GAMES.pgn[.gz] [GAMES.pgn[.gz] ...]"""
import gzip
import re
import sys
from collections import defaultdict

MOVE_TIME = re.compile(r"\{[^}]*?(\d+\.\d+)s\}")


def parse_control(tag):
    moves, _, rest = tag.rpartition("/")
    base, _, inc = rest.partition("+")
    return (int(moves) if moves else 0), float(base), float(inc or 0)


def games(path):
    tags, body = {}, []
    opener = gzip.open if path.endswith(".gz") else open
    for line in opener(path, "rt", encoding="utf-8"):
        if line.startswith("[") and body:
            yield tags, " ".join(body)
            tags, body = {}, []
        if line.startswith("["):
            key, _, value = line[1:].partition(" ")
            tags[key] = value.strip().rstrip("]").strip('"')
        elif line.strip():
            body.append(line.strip())
    if tags:
        yield tags, " ".join(body)


def main(paths):
    stats = defaultdict(lambda: {"games": 0, "time_losses": 0, "least_left": float("inf"), "longest": 0.0,
                                 "moves": 0, "time": 0.0})
    terminations = defaultdict(int)
    for path in paths:
        for tags, body in games(path):
            per_period, base, inc = parse_control(tags["TimeControl"])
            players = [tags["White"], tags["Black"]]
            if tags.get("FEN", "").split(" ")[1:2] == ["b"]:
                players.reverse()
            terminations[tags.get("Termination", "?")] += 1
            for side in players:
                stats[side]["games"] += 1
            if tags.get("Termination") == "time forfeit":
                loser = tags["White"] if tags["Result"] == "0-1" else tags["Black"]
                stats[loser]["time_losses"] += 1
            clocks = [base, base]
            made = [0, 0]
            for ply, spent in enumerate(float(t) for t in MOVE_TIME.findall(body)):
                side = ply % 2
                clocks[side] -= spent
                made[side] += 1
                record = stats[players[side]]
                record["least_left"] = min(record["least_left"], clocks[side])
                record["longest"] = max(record["longest"], spent)
                record["moves"] += 1
                record["time"] += spent
                clocks[side] += inc
                if per_period and made[side] % per_period == 0:
                    clocks[side] += base
    print("terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(terminations.items())))
    print("| engine | games | losses on time | least clock left after a move (ms) | longest move (ms) | mean move (ms) |")
    print("|---|---|---|---|---|---|")
    for name, r in sorted(stats.items()):
        mean = 1000 * r["time"] / max(r["moves"], 1)
        print(f"| {name} | {r['games']} | {r['time_losses']} | {1000 * r['least_left']:.0f} | "
              f"{1000 * r['longest']:.0f} | {mean:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
