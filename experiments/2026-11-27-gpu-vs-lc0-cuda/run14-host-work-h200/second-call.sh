#!/usr/bin/env bash
# The second H200 call of 2026-12-04, on the machine run.sh had started (the command as it ran, one step a line): search
# NPS of .device/kairos against .device/kairos-before on Maia-1900 and the 20×256 SE net at Threads 1 and 2, two
# rounds in opposite orders (search-ab.txt), then Kairos and lc0 cuda-fp16 at Threads 4 on the three nets
# (search-t4.txt). usage: OUT=… bash .device/second-call.sh
set -u; T=$(python3 -c "
import importlib.machinery, importlib.util
l = importlib.machinery.SourceFileLoader('g', 'scripts/gpu-check')
m = importlib.util.module_from_spec(importlib.util.spec_from_loader('g', l)); l.exec_module(m)
print(m.environment_with_torch().get('LD_LIBRARY_PATH', ''))"); export LD_LIBRARY_PATH=$T:$PWD/.device/lib; N=/tmp/nets; K=.device; mkdir -p $N; $K/make_test_nets --bench $N >/dev/null; cp weights/maia-1900.pb.gz $N/; s=$SECONDS
for order in "kairos-before kairos" "kairos kairos-before"; do for net in maia-1900 bench-se-20x256; do for t in 1 2; do for k in $order; do [ $((SECONDS-s)) -gt 200 ] && break 4; echo "== $k $net t$t" >> $OUT/search-ab.txt; $K/$k benchmark --weights $N/$net.pb.gz --backend-device cuda --precision fp16 --movetime 2000 --num-positions 2 --smart-pruning-factor 0 --threads $t >> $OUT/search-ab.txt 2>&1; echo "$net t$t $k $(grep Nodes/second $OUT/search-ab.txt | tail -1)"; done; done; done; done
for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do [ $((SECONDS-s)) -gt 290 ] && break; echo "== kairos $net t4" >> $OUT/search-t4.txt; $K/kairos benchmark --weights $N/$net.pb.gz --backend-device cuda --precision fp16 --movetime 3000 --num-positions 2 --smart-pruning-factor 0 --threads 4 >> $OUT/search-t4.txt 2>&1; echo "$net t4 kairos $(grep Nodes/second $OUT/search-t4.txt | tail -1)"; echo "== lc0 $net t4" >> $OUT/search-t4.txt; $K/lc0 benchmark --weights=$N/$net.pb.gz --backend=cuda-fp16 --threads=4 --movetime=3000 --num-positions=2 >> $OUT/search-t4.txt 2>&1; echo "$net t4 lc0 $(grep Nodes/second $OUT/search-t4.txt | tail -1)"; done; echo all $((SECONDS-s)) s
