#!/usr/bin/env bash
# Two files of NVIDIA's CUDA 13.0 toolkit, from NVIDIA's wheels on PyPI (idempotent), into
# target/cuda-tools/cu13 laid out as a toolkit (CUDA_PATH):
#   nvvm/libdevice/libdevice.10.bc  (wheel nvidia-nvvm): burn-cuda compiles its kernels
#       with LLVM's NVPTX backend, which links libdevice into any kernel that calls a math
#       function PTX has no instruction for (exp, ln, ...: SwiGLU, softmax, RoPE's
#       angles); it looks under $CUDA_PATH or /usr/local/cuda and fails the launch
#       without it. A GPU machine with a driver and no toolkit has none.
#   bin/ptxas  (wheel nvidia-cuda-nvcc): PTX to an H100's machine code, to check kernels
#       here (scripts/check-cuda-kernels.sh).
# Prints the directory. Used by scripts/check-cuda-kernels.sh and gpu-bench.sh's bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$PWD/target/cuda-tools/cu13
version=13.0.88
if [ ! -f "$dir/nvvm/libdevice/libdevice.10.bc" ] || [ ! -x "$dir/bin/ptxas" ]; then
    wheels=$PWD/target/cuda-tools/wheels
    mkdir -p "$wheels"
    echo "cuda-tools: fetching nvidia-nvvm and nvidia-cuda-nvcc $version from PyPI (~100 MB)" >&2
    # pip from a venv of its own, as scripts/pyflakes-venv.sh does (Debian's python3
    # comes without it).
    [ -x target/cuda-tools/venv/bin/pip ] || python3.11 -m venv target/cuda-tools/venv
    target/cuda-tools/venv/bin/pip download -q --disable-pip-version-check --no-deps \
        --dest "$wheels" "nvidia-nvvm==$version" "nvidia-cuda-nvcc==$version" >&2
    python3 - "$wheels" "$dir" <<'EOF'
import glob, os, sys, zipfile
wheels, dest = sys.argv[1:3]
want = {"nvidia/cu13/nvvm/libdevice/libdevice.10.bc", "nvidia/cu13/bin/ptxas"}
for wheel in glob.glob(f"{wheels}/*.whl"):
    with zipfile.ZipFile(wheel) as z:
        for name in want & set(z.namelist()):
            path = os.path.join(dest, name.removeprefix("nvidia/cu13/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(z.read(name))
            os.chmod(path, 0o755)
            want.discard(name)
if want:
    sys.exit(f"cuda-tools: not in the wheels: {sorted(want)}")
EOF
    rm -rf "$wheels"
fi
echo "$dir"
