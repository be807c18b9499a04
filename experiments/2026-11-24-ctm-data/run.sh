#!/bin/sh
# Regenerates everything in this folder (issue #11 items 1 and 2): three tm-data runs on the two Lichess
# files, from the thesis's filters to fully relaxed ones, then the three architectures on the relaxed data, and
# their predictions for the positions of the thesis's Table 1 (item 6).
# Run from the repository root after `cargo build --release -p kairos`; KAIROS overrides the binary.
set -eu
K=${KAIROS:-target/release/kairos}
D=experiments/2026-11-24-ctm-data
P="../shared/gamedata/lichess-2017-09-1000-games-clk.pgn ../shared/gamedata/lichess-2025-05-438-games-clk.pgn"
$K tm-data $P --out $D/data-thesis.safetensors | tee $D/tm-data-thesis.txt
$K tm-data $P --out $D/data-checkmate.safetensors --min-rating 0 --time-control any | tee $D/tm-data-checkmate.txt
$K tm-data $P --out $D/data-relaxed.safetensors --min-rating 0 --time-control any --ending any | tee $D/tm-data-relaxed.txt
for arch in ctm-1.0 ctm-2.0 ctm-2.1; do
    $K tm-train --arch $arch --data $D/data-relaxed.safetensors --out $D/$arch.safetensors --max-epochs 40 \
        | tee $D/tm-train-$arch.txt
done
for arch in ctm-1.0 ctm-2.0 ctm-2.1; do
    $K tm-predict --model $D/$arch.safetensors --epd $D/thesis-table1.epd | tee $D/tm-predict-$arch.txt
done
