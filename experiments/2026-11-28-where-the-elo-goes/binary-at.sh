#!/usr/bin/env bash
# Prints the path of a release `kairos` built at commit REV, building it first if it is not there yet
# (target/experiment-binaries/kairos-REV, in a temporary worktree sharing this checkout's target folder and
# libtorch). A resumed match needs the binary its games were played with: the runner refuses another.
# usage: binary-at.sh REV
set -euo pipefail
rev=${1:?usage: binary-at.sh REV}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
short=$(git -C "$root" rev-parse --short=7 "$rev^{commit}")
binary="$root/target/experiment-binaries/kairos-$short"
if [ ! -x "$binary" ]; then
  "$root/scripts/setup" >&2
  worktree=$(mktemp -d)
  git -C "$root" worktree add -q --detach "$worktree" "$short"
  (cd "$worktree" && LIBTORCH="$root/.libtorch/torch" CARGO_TARGET_DIR="$root/target/experiment-build" \
    cargo build --release -p kairos >&2)
  mkdir -p "$(dirname "$binary")"
  cp "$root/target/experiment-build/release/kairos" "$binary"
  git -C "$root" worktree remove --force "$worktree"
fi
echo "$binary"
