set -u
export PYTHONUNBUFFERED=1
start=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
export LD_LIBRARY_PATH=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))"):$PWD/.device/lib
python3 scripts/gpu-check --kairos .device/kairos --skip-speed --device ${DEVICE:-cuda} --reference .device/maia1900-reference.json --log $OUT/gpu-check.txt | tail -3
echo "gpu-check: $((SECONDS-start)) s"
MOVETIME=${MOVETIME:-2000} bash experiments/2026-11-27-gpu-vs-lc0-cuda/run7-cudnn-benchmark/cudnn-benchmark.sh
