#!/usr/bin/env bash
# The bullet run with pondering on, under cutechess-cli (fastchess plays without pondering): the default against
# `legacy(preset=lc0)`, both at their defaults with `Ponder` on, so each searches on the other's time and the two
# share the machine's cores all game; one game at a time, UHO_4060_v4 in random order (seed 106), each opening with
# both colours. cutechess-cli loses a move past the clock on time, as fastchess does.
# usage: CUTECHESS=path KAIROS=path ponder.sh NAME TC NET [GAMES]   (TC in cutechess's form: 1+0.01, 40/1, 1)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
name=$1 tc=$2 net=$3 games=${4:-1000}
kairos=$(realpath "${KAIROS:-$root/target/release/kairos}")
case $net in
  maia) weights=() ;;
  attention) weights=("arg=--weights=$root/reference/nets/transformer-pe-map-smolgen.pb.gz") ;;
  *) echo "NET is maia or attention, not $net" >&2; exit 2 ;;
esac
book=$(realpath "${BOOK:-$root/../shared/books/UHO_4060_v4.epd}")
mkdir -p "$here/$name"
cd "$here/$name"
[ -e games.pgn ] && { echo "$name/games.pgn exists: move it away to run again" >&2; exit 2; }
args=(
  -engine name=default "cmd=$kairos" "${weights[@]}"
  -engine name=legacy-lc0 "cmd=$kairos" "${weights[@]}" "arg=--time-manager=legacy(preset=lc0)"
  -each proto=uci "tc=$tc" ponder
  -openings "file=$book" format=epd order=random -srand 106
  -rounds $((games / 2)) -games 2 -repeat -concurrency 1 -recover
  -pgnout games.pgn
)
{ echo "# $(date -u +%FT%TZ) $("$kairos" --version) on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) cores"
  printf '%q ' "${CUTECHESS:-cutechess-cli}" "${args[@]}"; echo; } > command.txt
"${CUTECHESS:-cutechess-cli}" "${args[@]}" > output.txt 2>&1
