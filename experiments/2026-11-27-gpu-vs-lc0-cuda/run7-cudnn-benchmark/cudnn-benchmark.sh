#!/usr/bin/env bash
# Prepared and run on 2026-11-27 (run.sh beside this calls it after gpu-check): cuDNN's benchmark mode (CudnnBenchmark) on and off
# with CUDA graphs, network and search, fp16, the three nets of gpu-compare. From the repository root, with the kit
# of scripts/gpu-kit in .device (carry .device and weights/maia-1900.pb.gz):
#   OUT=DIR bash experiments/2026-11-27-gpu-vs-lc0-cuda/next-cudnn-benchmark/run.sh     (about 3 minutes)
# Dry run on a CPU: OUT=DIR DEVICE=cpu PRECISION=bf16 MOVETIME=300 MAXBATCH=8 bash …/run.sh (about 20 s).
set -u
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))"):$PWD/.device/lib
K=.device/kairos; N=/tmp/nets; D=${DEVICE:-cuda}; P=${PRECISION:-fp16}; MT=${MOVETIME:-3000}; MB=${MAXBATCH:-1024}
.device/make_test_nets --bench $N > /dev/null
cp weights/maia-1900.pb.gz $N/
start=$SECONDS
$K --version
for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do
  for bm in false true; do
    f=$OUT/backendbench-$net-cudnn-benchmark-$bm.txt
    $K backendbench --weights $N/$net.pb.gz --device $D --precision $P --batches 20 --max-batch-size $MB \
      --cudnn-benchmark=$bm > $f 2>&1
    echo "$net cudnn-benchmark=$bm median evaluations/s: $(awk -F', ' '/^(1|8|64|256|1024), / {printf "%s:%s ", $1, $7}' $f)"
  done
done
echo "backendbench: $((SECONDS-start)) s"
for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do
  for args in "--threads 1 --cudnn-benchmark=false" "--threads 1 --cudnn-benchmark=true" "--threads 2 --cudnn-benchmark=true"; do
    echo "== benchmark $net $args" | tee -a $OUT/benchmark.txt
    $K benchmark --weights $N/$net.pb.gz --backend-device $D --precision $P --movetime $MT --num-positions 2 \
      --smart-pruning-factor 0 $args >> $OUT/benchmark.txt 2>&1
    grep "Nodes/second" $OUT/benchmark.txt | tail -1
  done
done
echo "all: $((SECONDS-start)) s"
