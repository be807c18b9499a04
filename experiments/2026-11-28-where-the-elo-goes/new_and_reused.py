#!/usr/bin/env python3
"""#34: a move's tree at move time is what it inherited plus what it searched. On the virtual clock a move's time is
its playouts at VirtualNps (1400 in these runs), so new = time_used_ms × 1.4 and reused = nodes − new (at least 0).
Over own moves 10–60 (the report's evenness window) this prints, per engine, the mean and CV of each part, their
correlation and the tree-size CV they make, to show where a manager's evenness comes from.
usage: new_and_reused.py RESULTS.jsonl[.gz] [RESULTS…] [--nps 1400]"""
import gzip
import json
import statistics
import sys

from trajectory import RESULT


def moves_by_engine(path, nps):
    """(tree, new, reused) for each own move 10–60, and the score, per engine of one results file."""
    parts, scores = {}, {}
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as lines:
        for line in lines:
            game = json.loads(line)
            white_first = game["opening"]["fen"].split()[1] == "w"
            white_points = RESULT[game["result"]]
            scores.setdefault(game["white"], []).append(white_points)
            scores.setdefault(game["black"], []).append(1.0 - white_points)
            for ply, move in enumerate(game["moves"]):
                engine = game["white"] if (ply % 2 == 0) == white_first else game["black"]
                if 10 <= ply // 2 + 1 <= 60:
                    new = move["time_used_ms"] * nps / 1000.0
                    parts.setdefault(engine, []).append((move["nodes"], new, max(0.0, move["nodes"] - new)))
    return parts, scores


def cv(values):
    return statistics.pstdev(values) / statistics.fmean(values)


def main(argv):
    nps = 1400.0
    if "--nps" in argv:
        at = argv.index("--nps")
        nps = float(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    print("| results | engine | games | score | tree: mean / CV | new: mean / CV | reused: mean / CV | corr(new, reused) |")
    print("|---|---|---|---|---|---|---|---|")
    for path in argv:
        parts, scores = moves_by_engine(path, nps)
        for engine, rows in parts.items():
            tree, new, reused = ([row[k] for row in rows] for k in range(3))
            corr = statistics.correlation(new, reused)
            games = len(scores[engine])
            print(f"| {path} | {engine} | {games} | {statistics.fmean(scores[engine]):.3f} | "
                  f"{statistics.fmean(tree):.0f} / {cv(tree):.3f} | {statistics.fmean(new):.0f} / {cv(new):.3f} | "
                  f"{statistics.fmean(reused):.0f} / {cv(reused):.3f} | {corr:+.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
