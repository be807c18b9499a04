#!/usr/bin/env python3
"""Records python-chess's Syzygy probes (an independent prober) for Kairos's tablebase tests.

usage: capture-syzygy-probes.py TABLES OUT

TABLES is the directory of the committed tables (reference/syzygy). OUT gets:
  "random": for 4,000 random legal positions (seeded): 3,600 spread over every table's material, 400 KPvKP
            right after a double push that can be taken en passant; the FEN, python-chess's probe_wdl (WDL assuming the
            fifty-move counter was just reset) and probe_dtz;
  "root":   for hand-picked positions, every legal move with the probes of the position it reaches.
Needs `pip install chess` (python-chess 1.11).
"""
import json
import random
import sys

import chess
import chess.syzygy

SEED = 20261126
RANDOM_POSITIONS = 4000
# Of those, KPvKP positions right after a double push that can be taken en passant.
EN_PASSANT_POSITIONS = 400

# Hand-picked roots: (name, FEN, what the position exercises).
ROOTS = [
    ("stalemate-trap", "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1",
     "KQvK: Qc8 mates, Qc7 stalemates; every other queen or king move keeps the win"),
    ("cursed-win", "8/8/8/8/8/8/1n5B/2K1N2k w - - 0 1",
     "KBNvKN, the longest cursed win (153 plies to zeroing): every win is cursed, ranked by DTZ"),
    ("blessed-loss", "8/8/8/8/8/6B1/1n6/2K1N2k b - - 1 1",
     "after the cursed win's only move: black loses, but the fifty-move rule saves it"),
    ("fifty-move-edge", "8/8/8/8/8/2k5/8/K1NB4 w - - 36 80",
     "KBNvK with the fifty-move counter at 36: only wins with DTZ + 36 <= 99 keep rank 1000"),
    ("fifty-move-lost", "8/8/8/8/8/2k5/8/K1NB4 w - - 95 100",
     "the same board at counter 95: no win fits, the shortest DTZ is ranked best"),
    ("en-passant", "8/8/8/3pP3/8/8/k7/7K w - d6 0 2",
     "KPvKP after ...d7d5: exd6 e.p. is a capture (zeroing), the other moves are not"),
    ("en-passant-only-move", "8/8/8/8/2pP4/2k5/8/3K4 b - d3 0 1",
     "black to move can take en passant (c4xd3)"),
    ("losing-side", "8/8/8/8/8/2k5/8/K1q5 w - - 0 1",
     "KvKQ, white to move in check: Ka2 is the only move and it loses"),
    ("rook-draw-or-win", "8/8/8/8/8/2k5/2p5/K1R5 w - - 0 1",
     "KRvKP: Rxc2+ wins, other moves draw or lose"),
]


def tables_in(directory):
    import os
    return sorted({name.split(".")[0] for name in os.listdir(directory) if name.endswith(".rtbw")})


def random_position(material, rng):
    """A random legal position with `material` (e.g. KBNvKN), side to move random; None if illegal."""
    white, black = material.split("v")
    board = chess.Board(None)
    squares = list(chess.SQUARES)
    rng.shuffle(squares)
    index = 0
    for color, pieces in ((chess.WHITE, white), (chess.BLACK, black)):
        for symbol in pieces:
            piece_type = chess.Piece.from_symbol(symbol).piece_type
            square = squares[index]
            index += 1
            if piece_type == chess.PAWN and chess.square_rank(square) in (0, 7):
                return None
            board.set_piece_at(square, chess.Piece(piece_type, color))
    if rng.random() < 0.5:
        board.apply_mirror()  # the weaker side's view of the same table
    board.turn = rng.choice([chess.WHITE, chess.BLACK])
    board.halfmove_clock = 0
    if not board.is_valid():
        return None
    return board


def with_en_passant(board, rng):
    """The same position with an en-passant square set where a double push could just have happened."""
    candidates = []
    mover = not board.turn
    for square in board.pieces(chess.PAWN, mover):
        rank = chess.square_rank(square)
        if (mover == chess.WHITE and rank == 3) or (mover == chess.BLACK and rank == 4):
            behind = square - 8 if mover == chess.WHITE else square + 8
            start = square - 16 if mover == chess.WHITE else square + 16
            if board.piece_at(behind) is None and board.piece_at(start) is None:
                candidates.append(behind)
    for ep in candidates:
        trial = board.copy()
        trial.ep_square = ep
        if trial.is_valid() and trial.has_legal_en_passant():
            return trial
    return None


def probe(tablebase, board):
    return {"wdl": tablebase.probe_wdl(board), "dtz": tablebase.probe_dtz(board)}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    directory, out = sys.argv[1], sys.argv[2]
    rng = random.Random(SEED)
    materials = tables_in(directory)
    records = []
    with chess.syzygy.open_tablebase(directory) as tablebase:
        while len(records) < RANDOM_POSITIONS - EN_PASSANT_POSITIONS:
            board = random_position(materials[len(records) % len(materials)], rng)
            if board is None or not any(board.legal_moves):
                continue
            records.append({"fen": board.fen(), **probe(tablebase, board)})
        with_ep = 0
        while with_ep < EN_PASSANT_POSITIONS:
            board = random_position("KPvKP", rng)
            board = board and with_en_passant(board, rng)
            if board is None:
                continue
            records.append({"fen": board.fen(), **probe(tablebase, board)})
            with_ep += 1
        roots = []
        for name, fen, about in ROOTS:
            board = chess.Board(fen)
            assert board.is_valid(), fen
            moves = []
            for move in board.legal_moves:
                board.push(move)
                entry = {"uci": move.uci(), "zeroing": board.halfmove_clock == 0,
                         "checkmate": board.is_checkmate()}
                if any(board.legal_moves):
                    entry.update(probe(tablebase, board))
                else:
                    entry.update({"wdl": -2 if board.is_checkmate() else 0, "dtz": -1 if board.is_checkmate() else 0})
                moves.append(entry)
                board.pop()
            roots.append({"name": name, "fen": fen, "about": about, "moves": moves})
    document = {
        "_about": "python-chess %s probing reference/syzygy (its chess.syzygy is an independent prober); "
                  "written by reference/capture-syzygy-probes.py, seed %d. wdl: -2 loss, -1 blessed loss, 0 draw, "
                  "1 cursed win, 2 win, assuming the fifty-move counter was just reset; dtz: python-chess's "
                  "probe_dtz (plies to a zeroing move, beyond +-100 cursed; may be one ply long). root.moves: the "
                  "probes of the position each legal move reaches (its side to move), mates as wdl -2, dtz -1."
                  % (chess.__version__, SEED),
        "random": records,
        "root": roots,
    }
    with open(out, "w") as handle:
        json.dump(document, handle, indent=1)
        handle.write("\n")
    print(f"{len(records)} random positions ({with_ep} with en passant), {len(roots)} roots -> {out}")


if __name__ == "__main__":
    main()
