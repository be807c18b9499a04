#!/usr/bin/env bash
# #106 item 2's bullet runs as a player's match runs them: fastchess (the referee, strict: a move past the clock
# loses), the default against `legacy(preset=lc0)`, both at their defaults (search threads chosen by the engine,
# MoveOverheadMs 200), one game at a time, so the two engines share the machine's cores. The openings: UHO_4060_v4,
# random order (seed 106), each played with both colours.
# usage: FASTCHESS=path KAIROS=path run.sh NAME TC NET [GAMES] [extra fastchess -each arguments, e.g. ponder]
#   NAME: the folder the run writes (NAME/games.pgn, NAME/fastchess.log, NAME/command.txt)
#   TC:   fastchess's clock, seconds: 1+0 (sudden death), 40/1 (40 moves in 1 s, repeating), 1+0.01 (increment)
#   NET:  maia (the default network) or attention (reference/nets/transformer-pe-map-smolgen.pb.gz, whose backend
#         runs libtorch's passes on two OpenMP threads)
# A stopped run is not resumed: fastchess starts again; count only finished runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
name=$1 tc=$2 net=$3 games=${4:-1000}
shift 3; [ $# -gt 0 ] && shift
kairos=$(realpath "${KAIROS:-$root/target/release/kairos}")
case $net in
  maia) weights="" ;;
  attention) weights="--weights=$root/reference/nets/transformer-pe-map-smolgen.pb.gz " ;;
  *) echo "NET is maia or attention, not $net" >&2; exit 2 ;;
esac
book=$(realpath "${BOOK:-$root/../shared/books/UHO_4060_v4.epd}")
mkdir -p "$here/$name"
cd "$here/$name"
[ -e games.pgn ] && { echo "$name/games.pgn exists: move it away to run again" >&2; exit 2; }
args=(
  -engine name=default "cmd=$kairos" ${weights:+"args=$weights"}
  -engine name=legacy-lc0 "cmd=$kairos" "args=${weights}--time-manager=legacy(preset=lc0)"
  -each "tc=$tc" "$@"
  -openings "file=$book" format=epd order=random -srand 106
  -rounds $((games / 2)) -games 2 -repeat -concurrency 1
  -pgnout file=games.pgn -log file=fastchess.log level=warn
)
{ echo "# $(date -u +%FT%TZ) $("$kairos" --version) on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) cores"
  printf '%q ' "${FASTCHESS:-fastchess}" "${args[@]}"; echo; } > command.txt
"${FASTCHESS:-fastchess}" "${args[@]}" > output.txt 2>&1
