#!/usr/bin/env bash
# The two short commands that followed run.sh on the same H100 machine (2026-11-27): the A/B of step 2 again with
# 0c87bb5 first (benchmark-round2.txt), Kairos's Threads=0 on one core and on all 16 (cpu-kairos-0.txt,
# cpu-kairos-0-15.txt), then lc0 onednn's defaults on one core (cpu-lc0-onednn-0.txt).
export LD_LIBRARY_PATH=$(python3 -c "import torch,os;print(os.path.join(os.path.dirname(torch.__file__),'lib'))"):$PWD/.device/lib
[ -e .device/lib/libdnnl.so.2 ] || python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.device/libdnnl.so.2.xz'), open('.device/lib/libdnnl.so.2', 'wb'))"
N=/tmp/nets; mkdir -p $N; .device/make_test_nets --bench $N >/dev/null; cp weights/maia-1900.pb.gz $N/
for net in maia-1900 bench-se-20x256 bench-transformer-256x10; do
  for t in 1 2; do
    for k in kairos kairos-before; do
      echo "== $k $net threads $t" >> $OUT/benchmark-round2.txt
      .device/$k benchmark --weights $N/$net.pb.gz --backend-device cuda --precision fp16 --movetime 2000 \
        --num-positions 2 --smart-pruning-factor 0 --threads $t >> $OUT/benchmark-round2.txt 2>&1
      echo "$net t$t $k $(grep Nodes/second $OUT/benchmark-round2.txt | tail -1)"
    done
  done
done
for c in 0 0-15; do
  /usr/bin/time -f "cores %e %U %S" taskset -c $c .device/kairos benchmark --weights $N/maia-1900.pb.gz \
    --backend-device cpu --threads 0 --movetime 4000 --num-positions 4 --smart-pruning-factor 0 > $OUT/cpu-kairos-$c.txt 2>&1
  echo "kairos cores $c: $(grep -E 'Nodes/second|^cores' $OUT/cpu-kairos-$c.txt | tr '\n' ' ')"
done
/usr/bin/time -f "cores %e %U %S" taskset -c 0 .device/lc0-onednn benchmark --weights=$N/maia-1900.pb.gz \
  --backend=onednn --movetime=4000 --num-positions=4 > $OUT/cpu-lc0-onednn-0.txt 2>&1
echo "lc0 onednn core 0: $(grep -E 'Nodes/second|^cores' $OUT/cpu-lc0-onednn-0.txt | tr '\n' ' ')"
