#!/bin/sh
# Issue #11 item 5: a CTM target that needs no human clocks. kairos tm-label searches positions of the Lichess
# games with Kairos's own search to NODES and on to FACTOR*NODES visits and labels each by how much the extra
# search changed the decision (1 if the best move changed, else |dQ|/0.2 capped at 1); the CTM-Net
# architectures are trained on the labels and predict the positions of the thesis's Table 1.
# Run from the repository root after `cargo build --release -p kairos`; KAIROS overrides the binary.
# The defaults are the full-size run (every distinct position of both files, about 90k, at 100 -> 800 visits:
# hours of CPU). The committed outputs are the small demonstration:
#   KAIROS=target/debug/kairos LIMIT=400 NODES=50 ARCHS=ctm-2.0 EPOCHS=20 BATCH=64 sh experiments/2026-11-25-ctm-search-labels/run.sh
# OUT=DIR writes elsewhere (experiments/2026-11-25-ctm-labels-vs-legacy-10+0.1 holds a larger run).
set -eu
K=${KAIROS:-target/release/kairos}
D=${OUT:-experiments/2026-11-25-ctm-search-labels}
mkdir -p "$D"
P=${POSITIONS:-"../shared/gamedata/lichess-2017-09-1000-games-clk.pgn ../shared/gamedata/lichess-2025-05-438-games-clk.pgn"}
NODES=${NODES:-100}
FACTOR=${FACTOR:-8}
LIMIT=${LIMIT:-}
ARCHS=${ARCHS:-"ctm-1.0 ctm-2.0 ctm-2.1"}
EPOCHS=${EPOCHS:-40}
BATCH=${BATCH:-2048}
# An empty LIMIT labels every distinct position.
$K tm-label --positions $P --out $D/data-labels.safetensors --nodes "$NODES" --factor "$FACTOR" ${LIMIT:+--limit "$LIMIT"} \
    | tee $D/tm-label.txt
for arch in $ARCHS; do
    $K tm-train --arch "$arch" --data $D/data-labels.safetensors --out "$D/$arch.safetensors" --max-epochs "$EPOCHS" \
        --batch "$BATCH" | tee "$D/tm-train-$arch.txt"
    $K tm-predict --model "$D/$arch.safetensors" --epd experiments/2026-11-24-ctm-data/thesis-table1.epd \
        | tee "$D/tm-predict-$arch.txt"
done
