#!/usr/bin/env bash
# Superseded on 2026-12-05 by run20-prepared-2026-12-05: the same steps with CudnnFusion A/B-tested in step 1.
# Prepared on 2026-12-04 for the next GPU measurement (#33 items 4–5), one command of under 10 minutes:
#  1. scripts/gpu-compare --threads 1,2 --movetime 2000: .device/kairos-spin (this build with
#     experiments/2026-12-04-spin-wait/spin-wait.patch: the network thread and its callers poll their channels before
#     they sleep) against .device/kairos (the build without it) and lc0 cuda-fp16; its gpu-check first;
#  2. search NPS of .device/kairos against .device/kairos-before (c779547, run17's build: before 2c980be's pass
#     buffers, 21c00eb's sort and 90df08c's root scan, and the cuts of the descent's instructions up to a62a638, 41,170 -> 22,510
#     a node on the random backend), `benchmark`, lc0's first 2 positions × 2 s, fp16, no smart pruning, the three
#     nets at Threads 1 and 2, two rounds in opposite orders;
#  3. the stage-timing build of .device/kairos (.device/kairos-stage-timing): bench of 30,000 nodes a position, the
#     three nets at Threads 1 and 2 (run17's step 2).
# Since 51a8d33, on CUDA a search thread now writes its batch's input rows into page-locked memory itself, so
# built at 51a8d33 or later, step 2 measures that too, and step 3's "inputs" (the network thread's own writing of
# the rows, 0.7-1.0 us a node in run17) should read about 0: a batch that found no free rows is all it counts.
# Carried: .device/ (kairos, kairos-spin, kairos-before, kairos-stage-timing, lc0, make_test_nets,
# maia1900-reference.json, lib/) and weights/; experiments/ is taken out of the index for the call (the tracked tree
# is over the 64 MiB that may be copied to the GPU host):
#   git rm -r -q --cached experiments; echo /experiments/ >> .git/info/exclude   … and after: git reset -q
# The kit: cargo build --release -p nn --example make_test_nets; scripts/gpu-kit .device LC0_CUDA; then
# .device/kairos from `cargo build --release -p kairos` at the commit to measure (8756ff4 or later, whose stage
# timing splits the network thread's inputs into their writing and their copies' queueing),
# .device/kairos-stage-timing the same with `--features stage-timing`, .device/kairos-spin with spin-wait.patch applied (`git am`), .device/kairos-before from
# c779547 (a worktree with CARGO_TARGET_DIR=target; touch engine/build.rs cli/src/main.rs before each build, or a
# binary keeps an older version line).
# DRY=1 runs it on a CPU (lc0 blas as .device/lc0-blas, the CPU's own precision, short): dry-run-cpu.txt, 495 s
# on a 2-core AMD EPYC (2026-12-04) with a virtual-clock match beside it, every step.
set -u
export PYTHONUNBUFFERED=1
torch_libs=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))")
export LD_LIBRARY_PATH=$torch_libs:$PWD/.device/lib
N=/tmp/nets; K=.device
if [ -n "${DRY:-}" ]; then D=cpu P=auto NODES=300 MS=300 dry=(--dry-run --lc0 $K/lc0-blas)
else D=cuda P=fp16 NODES=30000 MS=2000 dry=(--lc0 $K/lc0 --movetime 2000); fi
NETS="maia-1900 bench-se-20x256 bench-transformer-256x10"
start=$SECONDS
mkdir -p $N $OUT/compare
$K/make_test_nets --bench $N > /dev/null && cp weights/maia-1900.pb.gz $N/
echo "== 1. gpu-compare, kairos-spin against kairos"
python3 scripts/gpu-compare --kairos $K/kairos-spin --baseline $K/kairos "${dry[@]}" --out $OUT/compare \
  --reference $K/maia1900-reference.json --nets $N --threads 1,2 | grep -v '^$'
echo "== 2. search NPS, kairos against kairos-before: $((SECONDS-start)) s"
for round in 1 2; do
  builds="kairos-before kairos"; [ $round = 2 ] && builds="kairos kairos-before"
  for net in $NETS; do
    for t in 1 2; do
      for k in $builds; do
        [ $((SECONDS-start)) -gt 480 ] && { echo "skipped: out of time"; break 4; }
        nps=$($K/$k benchmark --weights $N/$net.pb.gz --backend-device $D --precision $P --threads $t \
          --movetime $MS --num-positions 2 --smart-pruning-factor 0 2>&1 | tee -a $OUT/search-ab.txt |
          grep -E "^Nodes/second" | tail -1)
        echo "round $round $net threads $t $k: $nps" | tee -a $OUT/search-ab.txt
      done
    done
  done
done
echo "== 3. stage timing: $((SECONDS-start)) s"
for net in $NETS; do
  for t in 1 2; do
    [ $((SECONDS-start)) -gt 560 ] && { echo "skipped: out of time"; break 2; }
    echo "== stage timing $net threads $t" >> $OUT/stage-timing.txt
    $K/kairos-stage-timing bench --weights $N/$net.pb.gz --backend-device $D --precision $P --nodes $NODES \
      --smart-pruning-factor 0 --threads $t >> $OUT/stage-timing.txt 2>&1
    echo "$net threads $t: $(grep -E "nodes .* nps$" $OUT/stage-timing.txt | tail -1)"
  done
done
echo "all: $((SECONDS-start)) s"
