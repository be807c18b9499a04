#!/usr/bin/env bash
# Chess960/DFRC play (#32): 200 games under fastchess (-variant fischerandom) from tests/data/dfrc-200.epd and
# 200 under `kairos match --variant chess960` from tests/data/chess960.epd, Kairos (defaults, Maia-1900, one
# search thread) against Stockfish (Threads=1, Hash=16, UCI_Chess960), 3+0.03, two games at a time.
# usage: run.sh KAIROS FASTCHESS   (run from this directory; each part resumes where its output says it ended)
set -euo pipefail
kairos=$(realpath "$1"); fastchess=$(realpath "$2")
root=$(cd ../.. && pwd)
stockfish=/usr/games/stockfish
if [ ! -s fastchess.pgn ] || [ "$(grep -c '^\[Result' fastchess.pgn)" -lt 200 ]; then
  rm -f fastchess.pgn fastchess.log
  "$fastchess" -engine cmd="$kairos" name=kairos "option.WeightsFile=$root/weights/maia-1900.pb.gz" \
    -engine cmd=$stockfish name=stockfish option.Threads=1 option.Hash=16 \
    -each tc=3+0.03 -variant fischerandom \
    -openings file="$root/tests/data/dfrc-200.epd" format=epd order=sequential \
    -rounds 100 -games 2 -repeat -concurrency 2 -recover \
    -pgnout file=fastchess.pgn -log file=fastchess.log level=warn > fastchess.out 2>&1
fi
"$kairos" match --engine name=kairos "cmd=$kairos" "option.WeightsFile=$root/weights/maia-1900.pb.gz" \
  --engine name=stockfish cmd=$stockfish option.Threads=1 option.Hash=16 \
  --each tc=3+0.03 --variant chess960 --games 200 --concurrency 2 \
  --openings "$root/tests/data/chess960.epd" --openings-order sequential \
  --results kairos-match.jsonl --pgn kairos-match.pgn $( [ -s kairos-match.jsonl ] && echo --resume ) > kairos-match.out 2>&1
