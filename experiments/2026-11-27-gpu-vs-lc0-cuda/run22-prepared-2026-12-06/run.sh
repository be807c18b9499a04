#!/usr/bin/env bash
# Prepared on 2026-12-05 for the next GPU measurement (#33 items 4-5), one command of under 10 minutes; run19's
# script with its first step's A/B changed:
#  1. scripts/gpu-compare --threads 1,2 --movetime 2000: .device/kairos (HEAD: the convolutions with their bias, ReLU
#     and a plain block's skip in one cuDNN call, `FusedConvolutions` (911236c's `CudnnFusion`) on by default)
#     against .device/kairos-unfused (a wrapper that runs the same binary with --fused-convolutions=false) and lc0
#     cuda-fp16; its gpu-check first (the fused path against lc0's outputs and eager against graphed); a refusal at
#     load shows as a warning in compare/*.txt ("the convolutions' bias, skip and ReLU run as separate operations");
#  2. search NPS of .device/kairos against .device/kairos-before (c779547, run17's build: before 2c980be's pass
#     buffers, the cuts of the descent up to 0803d2c, 51a8d33's input rows written by the search threads and
#     911236c's squeeze-excitation in one fused multiply-add and the convolutions' fusion), `benchmark`, lc0's
#     first 2 positions x 2 s, fp16, no smart pruning, the three nets at Threads 1 and 2, two rounds in opposite
#     orders;
#  3. the stage-timing build of .device/kairos (.device/kairos-stage-timing): bench of 30,000 nodes a position, the
#     three nets at Threads 1 and 2 (run17's step 2); its "inputs" (the network thread's own writing of the rows,
#     0.7-1.0 us a node in run17) should read about 0 since 51a8d33.
# Added on 2026-12-06, step 0: the search alone on the GPU host's CPU, Kairos (Backend=replay) and lc0 (recordreplay)
# replaying Maia searches recorded on the AMX Xeon (.device/replay/, lc0's first 2 positions to 20,000 nodes, one
# search thread, minibatch 256): run17 put Kairos's descent at 6.7 us a node there, where the replay here takes
# 3.4 us (BENCHMARKS.md, "The search on a real network's trees, replayed"). Binaries stripped, and reference/syzygy
# taken out of the index too, to keep the tree within 64 MiB. kairos and kairos-stage-timing rebuilt at c94c6c7
# (at 9c2f75b since run21).
# Step 2b (added on 2026-12-06): run19's spin-wait A/B, Maia at Threads 1 and 2: .device/kairos-spin is c94c6c7's search and
# network with experiments/2026-12-06-spin-variants/spin.patch (on CUDA with 4 cores or more, the network thread and
# the search threads poll their channels 5 ms before they sleep), .device/kairos-spin-caller the same binary with
# only the search threads polling (KAIROS_SPIN_CALLER_ONLY=1): a thread that sleeps for its outputs may wake on
# another core with cold caches, which step 0 would show as a replay faster than the search's host stages.
# Added later on 2026-12-06: to step 0 the host's lscpu and the stage-timing replay held to the last vCPU, and to step 2b
# .device/kairos-one-per-core (the kit's kairos held to one vCPU of each physical core: no search thread beside the
# network thread's spinning cudaDeviceSynchronize on one core's two hyperthreads) and .device/kairos-blocking-sync
# (kairos-spin rebuilt with experiments/2026-12-06-spin-variants/blocking-sync.patch as well, run without spinning and
# with the device's schedule set to blocking sync: that network thread sleeps while the GPU computes; its stderr
# line with cudaSetDeviceFlags's answer lands in search-spin.txt).
# run21 (2026-12-06) rebuilt kairos, kairos-stage-timing and kairos-spin at 9c2f75b (since c94c6c7: a process's CPU
# backends share one network, jemalloc purged after the load, MaxPrefetch by device, which on CUDA is lc0's 32 as
# before), kairos-spin from experiments/2026-12-06-spin-variants/spin-and-blocking-sync-on-9c2f75b.patch (the two
# patches redone on 9c2f75b, no change of behaviour), and added .device/kairos-prefetch0 to step 2b: the kit's kairos
# with --max-prefetch 0, no prefetching, a CPU backend's default since 33a1977, against CUDA's 32. The wrappers'
# tracked copies are in experiments/2026-11-27-gpu-vs-lc0-cuda/run20-prepared-2026-12-05/, kairos-prefetch0 in
# run21-prepared-2026-12-06/.
# run22 (2026-12-06, 23:50 UTC) rebuilt kairos, kairos-stage-timing and kairos-spin at f181b4d (since 9c2f75b: TaskWorkers, on
# CUDA lc0's batch order of its task workers by default; lc0's options for
# varied play, HistoryFill, LogFile, ConfigFile, ties broken as lc0, lc0's fused multiply-adds, the NN cache's
# en-passant key; nothing in the CUDA network's path), kairos-spin from the same patch, which applies there unchanged.
# Dry run at f181b4d: 376 s, every step, gpu-check passed (run22's folder).
# Steps 2 and 3 stop early past 450 and 530 s.
# Carried: .device/ (kairos, kairos-unfused, kairos-before, kairos-stage-timing, lc0, make_test_nets,
# maia1900-reference.json, lib/) and weights/; experiments/ is taken out of the index for the call (the tracked tree
# is over the 64 MiB that may be copied to the GPU host):
#   git rm -r -q --cached experiments reference/syzygy
#   printf '/experiments/\n/reference/syzygy/\n' >> .git/info/exclude
#   ... and after: git reset -q, and the two lines taken out of .git/info/exclude
# The kit: cargo build --release -p nn --example make_test_nets; scripts/gpu-kit .device LC0_CUDA; then
# .device/kairos from `cargo build --release -p kairos` at the commit to measure, .device/kairos-stage-timing the
# same with `--features stage-timing`, .device/kairos-unfused this folder's kairos-unfused, .device/kairos-before from
# c779547 (a worktree with CARGO_TARGET_DIR=target; touch engine/build.rs cli/src/main.rs before each build, or a
# binary keeps an older version line).
# DRY=1 runs it on a CPU (lc0 blas as .device/lc0-blas, the CPU's own precision, short): dry-run-cpu.txt, 414 s
# on a 2-core AMD EPYC (ac5755f, 2026-12-05), every step, gpu-check passed; 9c2f75b's binaries' on the 2-core
# Zen 4 EPYC (2026-12-06) in run21's folder, 358 s.
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
echo "== 0. the search alone on this host's CPU: Maia searches recorded on a CPU, replayed without the network"
R=$PWD/.device/replay; lc0=$K/lc0; lc0_backend=cuda-fp16
[ -n "${DRY:-}" ] && { lc0=$K/lc0-blas; lc0_backend=blas; }
replay_flags=(--nodes 20000 --movetime -1 --num-positions 2 --threads 1 --minibatch-size 256)
for round in 1 2 3; do
  k=$($K/kairos benchmark --backend replay --record-file $R/kairos.rec "${replay_flags[@]}" --smart-pruning-factor 0 \
    2>&1 | tee -a $OUT/replay.txt | grep -E "^(Nodes|replay)" | tr '\n' ' ')
  l=$($lc0 benchmark --weights=weights/maia-1900.pb.gz --nodes=20000 --movetime=-1 --num-positions=2 --threads=1 \
    --task-workers=0 --minibatch-size=256 --backend=recordreplay \
    --backend-opts=backend=$lc0_backend,replay_file=$R/lc0.rec \
    2>&1 | tee -a $OUT/replay.txt | grep -E "^Nodes" | tr '\n' ' ')
  echo "round $round: kairos $k; lc0 $l"
done
$K/kairos-stage-timing benchmark --backend replay --record-file $R/kairos.rec "${replay_flags[@]}" \
  --smart-pruning-factor 0 > $OUT/replay-stage-timing.txt 2>&1
grep -E "^(gather|backup|all stages)" $OUT/replay-stage-timing.txt
# The host's topology (which vCPUs are hyperthread siblings), and the same replay held to one vCPU (no
# migration; on a 2-core EPYC a batch's sleep of 1-3 ms left the descent's 2.7 us a node within the noise).
lscpu > $OUT/lscpu.txt 2>&1; grep -E "^(Thread|Core|Socket|NUMA node\(s\)|Model name)" $OUT/lscpu.txt
last_cpu=$(($(nproc) - 1))
taskset -c $last_cpu $K/kairos-stage-timing benchmark --backend replay --record-file $R/kairos.rec \
  "${replay_flags[@]}" --smart-pruning-factor 0 > $OUT/replay-stage-timing-pinned.txt 2>&1
grep -E "^(gather|backup|all stages)" $OUT/replay-stage-timing-pinned.txt
echo "== 1. gpu-compare, kairos against kairos-unfused: $((SECONDS-start)) s"
python3 scripts/gpu-compare --kairos $K/kairos --baseline $K/kairos-unfused "${dry[@]}" --out $OUT/compare \
  --reference $K/maia1900-reference.json --nets $N --threads 1,2 | grep -v '^$'
echo "== 2b. search NPS on Maia, kairos against its spin, one-per-core, blocking-sync, no-prefetch variants: \
$((SECONDS-start)) s"
for round in 1 2; do
  builds="kairos kairos-spin kairos-spin-caller kairos-one-per-core kairos-blocking-sync kairos-prefetch0"
  [ $round = 2 ] && builds=$(echo $builds | tr ' ' '\n' | tac | paste -sd' ')
  for t in 1 2; do
    for k in $builds; do
      nps=$($K/$k benchmark --weights $N/maia-1900.pb.gz --backend-device $D --precision $P --threads $t \
        --movetime $MS --num-positions 2 --smart-pruning-factor 0 2>&1 | tee -a $OUT/search-spin.txt |
        grep -E "^Nodes/second" | tail -1)
      echo "round $round maia-1900 threads $t $k: $nps" | tee -a $OUT/search-spin.txt
    done
  done
done
echo "== 2. search NPS, kairos against kairos-before: $((SECONDS-start)) s"
for round in 1 2; do
  builds="kairos-before kairos"; [ $round = 2 ] && builds="kairos kairos-before"
  for net in $NETS; do
    for t in 1 2; do
      for k in $builds; do
        [ $((SECONDS-start)) -gt 450 ] && { echo "skipped: out of time"; break 4; }
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
    [ $((SECONDS-start)) -gt 530 ] && { echo "skipped: out of time"; break 2; }
    echo "== stage timing $net threads $t" >> $OUT/stage-timing.txt
    $K/kairos-stage-timing bench --weights $N/$net.pb.gz --backend-device $D --precision $P --nodes $NODES \
      --smart-pruning-factor 0 --threads $t >> $OUT/stage-timing.txt 2>&1
    echo "$net threads $t: $(grep -E "nodes .* nps$" $OUT/stage-timing.txt | tail -1)"
  done
done
echo "all: $((SECONDS-start)) s"
