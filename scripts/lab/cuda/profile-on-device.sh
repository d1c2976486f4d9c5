#!/bin/bash
# Where a CUDA decode step's 31 ms go (issue 20, after the check passed): GPU utilization
# sampled while `bench decode` runs, then Nsight Compute's per-kernel GPU time for a
# 4-token generation. Run as the third of three device calls, like run-on-device.sh.
set -u
C=/tmp/c
cp -r .cuda-carry3/* $C/ && cd $C || exit 1
Z="env LD_LIBRARY_PATH=$C/bin $C/bin/zstd"
cat model.zst.part00 model.zst.part01 model.zst.part02 | $Z -d --long=27 -q -o m.gguf || exit 1
$Z -d --long=28 -q -c espalier-cuda.tar.zst | tar -xf - || exit 1
mkdir -p out
nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory --format=csv,noheader -lms 100 > out/util.csv &
S=$!
./espalier-cuda/espalier bench decode --backend cuda --model m.gguf --lang python --modes none --rounds 3 --tokens 64 > out/bench.json 2>out/bench.log
kill $S; tail -1 out/bench.json
python3 - <<'PY'
import statistics
u=[int(l.split(',')[1].split()[0]) for l in open('/tmp/c/out/util.csv') if l.count(',')==2]
print(f"GPU utilization while bench decode ran: {len(u)} samples, mean {statistics.mean(u):.1f}%, median {statistics.median(u)}%, max {max(u)}%")
PY
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
timeout 400 $NCU --metrics gpu__time_duration.sum --csv ./espalier-cuda/espalier generate --backend cuda --model m.gguf --prompt "def f(x):" --max-tokens 4 --json > out/ncu.csv 2> out/ncu.log
echo "ncu rc $?"
python3 - <<'PY'
import csv, collections
rows=[r for r in csv.reader(open('/tmp/c/out/ncu.csv')) if len(r)>10]
h=rows[0]; rows=rows[1:]
ki=h.index('Kernel Name'); vi=h.index('Metric Value'); ui=h.index('Metric Unit')
tot=0.0; n=0; by=collections.Counter(); cnt=collections.Counter()
for r in rows:
    v=float(r[vi].replace(',',''))
    v = v/1000 if r[ui]=='nsecond' else v if r[ui]=='usecond' else v*1000 if r[ui]=='msecond' else v
    tot+=v; n+=1; name=r[ki][:60]; by[name]+=v; cnt[name]+=1
print(f"kernels: {n}, GPU time {tot/1000:.2f} ms in all")
for name,v in by.most_common(12): print(f"  {v/1000:8.3f} ms  {cnt[name]:5d}x  {name}")
PY
tar -czf $OUT/gpu-prof.tgz out; ls -l $OUT
