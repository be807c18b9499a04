#!/usr/bin/env python3
"""Writes the Chess960 and DFRC opening books of the Chess960 tests and matches.

usage: make-chess960-books.py OUT_DIR

chess960.epd: the 960 start positions in Scharnagl's numbering (0..959; 518 is standard chess), Shredder-FEN
castling fields. dfrc-200.epd: 200 double-Fischer-random positions (white's and black's back ranks drawn
independently from the 960, seed 960), as engine testers play DFRC. Needs `pip install chess`.
"""
import random
import sys

import chess


def back_rank(number):
    board = chess.Board.from_chess960_pos(number)
    return board.board_fen().split("/")[-1]


def shredder_fen(white_rank, black_rank):
    board_fen = f"{black_rank.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{white_rank}"
    board = chess.Board(f"{board_fen} w - - 0 1", chess960=True)
    for color in (chess.WHITE, chess.BLACK):
        for square in board.pieces(chess.ROOK, color):
            board.castling_rights |= chess.BB_SQUARES[square]
    assert board.is_valid(), board.fen()
    return board.fen(shredder=True)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    with open(f"{out}/chess960.epd", "w") as handle:
        for number in range(960):
            rank = back_rank(number)
            handle.write(shredder_fen(rank, rank) + "\n")
    rng = random.Random(960)
    with open(f"{out}/dfrc-200.epd", "w") as handle:
        for _ in range(200):
            handle.write(shredder_fen(back_rank(rng.randrange(960)), back_rank(rng.randrange(960))) + "\n")


if __name__ == "__main__":
    main()
