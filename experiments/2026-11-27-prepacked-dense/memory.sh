#!/usr/bin/env bash
# Memory of the 256x10 transformer loaded and searching (rss_stages.py), minus the same engine's with the 4-filter
# test net, for each ENGINE given as "name=command ..." in ENGINES (one per line). Prints one line per engine.
set -euo pipefail
cd "$(dirname "$0")"
nets="${NETS:-/tmp/kairos-bench-nets}"
small=../../reference/nets/se-classical-value-classical-policy.pb.gz
export OPENBLAS_CORETYPE=SkylakeX
while IFS='=' read -r name command; do
  [ -n "$name" ] || continue
  read -r -a cmd <<< "$command"
  read -r _ b1 _ b2 _ b3 <<< "$(./rss_stages.py "${cmd[@]}" --weights="$nets/bench-transformer-256x10.pb.gz")"
  read -r _ s1 _ s2 _ s3 <<< "$(./rss_stages.py "${cmd[@]}" --weights="$small")"
  echo "$name net-kb isready $((b1 - s1)) nodes1 $((b2 - s2)) nodes2000 $((b3 - s3))"
done <<< "$ENGINES"
