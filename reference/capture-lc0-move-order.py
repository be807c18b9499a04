#!/usr/bin/env python3
"""Records lc0's legal moves in the order its move generator lists them (ChessBoard::GenerateLegalMoves), the order
lc0 gives a node's edges before it sorts them by prior: where priors tie, that order and std::sort decide which
edge PUCT meets first.

usage: capture-lc0-move-order.py LC0_SOURCE OUT

Compiles a small program on LC0_SOURCE's src/chess/board.cc (with g++, as lc0 is built) that reads FENs and
prints each position's legal moves, in lc0's order, in UCI with castling as king takes rook. The positions:
every FEN of perft.epd, every 16th start position of chess960.perft after its moves, and 200 positions of seeded
random games from the start position (python-chess 1.11.2), chosen for promotions, en-passant captures and
castling, which lc0 generates apart from the other moves.
"""
import json, os, random, subprocess, sys, tempfile

import chess

PROGRAM = r"""
#include <iostream>
#include <string>
#include "chess/board.h"
int main() {
  lczero::InitializeMagicBitboards();
  std::string fen;
  while (std::getline(std::cin, fen)) {
    lczero::ChessBoard board;
    board.SetFromFen(fen);
    bool first = true;
    for (lczero::Move move : board.GenerateLegalMoves()) {
      if (board.flipped()) move.Flip();
      std::cout << (first ? "" : " ") << move.ToString(true);
      first = false;
    }
    std::cout << "\n";
  }
}
"""

source_dir, out = sys.argv[1:3]
here = os.path.dirname(os.path.abspath(__file__))
fens = [line.split(";")[0].strip() for line in open(os.path.join(here, "perft.epd")) if line.strip()]
chess960 = [line.split(None, 1)[1].strip() for line in open(os.path.join(here, "chess960.perft"))
            if line.startswith("epd ")]
chess960 = chess960[::16]

rng = random.Random(4)
special = []
while len(special) < 200:
    board = chess.Board()
    for _ in range(rng.randrange(10, 160)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        interesting = any(m.promotion or board.is_en_passant(m) or board.is_castling(m) for m in board.legal_moves)
        if interesting and rng.random() < 0.2:
            special.append(board.fen())
            break

with tempfile.TemporaryDirectory() as scratch:
    program, binary = os.path.join(scratch, "order.cc"), os.path.join(scratch, "order")
    open(program, "w").write(PROGRAM)
    sources = [os.path.join(source_dir, "src", name) for name in ("chess/board.cc", "utils/logging.cc")]
    subprocess.run(["g++", "-O1", "-std=c++20", "-w", "-DNO_PEXT", "-I", os.path.join(source_dir, "src"), program]
                   + sources + ["-o", binary], check=True)
    commit = subprocess.run(["git", "-C", source_dir, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    positions = []
    for group, group_fens in (("perft", fens), ("chess960", chess960), ("random", special)):
        answer = subprocess.run([binary], input="".join(f + "\n" for f in group_fens), capture_output=True,
                                text=True, check=True).stdout.splitlines()
        positions += [{"group": group, "fen": f, "moves": m.split()} for f, m in zip(group_fens, answer)]

json.dump({
    "description": (f"lc0 {commit}'s legal moves in its generator's order (ChessBoard::GenerateLegalMoves), in UCI "
                    "with castling as king takes rook; by capture-lc0-move-order.py"),
    "positions": positions,
}, open(out, "w"), indent=0)
