#!/bin/bash
# The third of three `device` calls of issue 20's GPU run (this workplace's device tool
# carries at most 64 MiB of files per call, the checkout included): calls 1 and 2 carried
# the model's zstd parts 00 and 01 (44 MB each) and copied them to /tmp/c; this one
# carries part 02, the bundle of scripts/check-cuda-build.sh recompressed with
# `zstd -19 --long=28` (37.5 MB) and this script, and runs check-cuda-gpu.sh. The GPU image
# has no zstd: call 1 also carried Debian's /usr/bin/zstd with its liblz4 / liblzma.
# Round 1 also ran hf_anchor.py here. Everything comes back as one archive from $OUT.
set -u
C=/tmp/c
cp -r .cuda-carry3/* $C/ && cd $C || exit 1
ls -l $C $C/bin
Z=zstd; command -v zstd >/dev/null || Z="env LD_LIBRARY_PATH=$C/bin $C/bin/zstd"
cat model.zst.part00 model.zst.part01 model.zst.part02 | $Z -d --long=27 -q -o SmolLM2-135M-Instruct.Q4_1.gguf || exit 1
sha256sum SmolLM2-135M-Instruct.Q4_1.gguf   # b179c952...
$Z -d --long=28 -q -c espalier-cuda.tar.zst | tar -xf - || exit 1
if ldd espalier-cuda/espalier | grep -q 'not found'; then ldd espalier-cuda/espalier; export LD_LIBRARY_PATH=$C; fi
cat /etc/os-release | head -2; nproc; grep -m1 'model name' /proc/cpuinfo
nvidia-smi; ls -d /usr/local/cuda* 2>/dev/null
mkdir -p $C/out
OUT_DIR=$C/out timeout 420 bash espalier-cuda/check-cuda-gpu.sh --bundle espalier-cuda --model SmolLM2-135M-Instruct.Q4_1.gguf 2>&1 | tee $C/out/check-cuda-gpu.log
tar -czf $OUT/gpu-run.tgz -C $C out; ls -l $OUT
