#!/usr/bin/env bash
# Sets up llama.cpp (llama-cpp-python) for scripts/bench-llamacpp.py on a CPU that the
# prebuilt wheel in ../shared/tools does not run on.
#
# Why: that wheel was compiled with -march=native on an AVX-512 (+AMX) machine; its
# libggml-cpu.so holds ~21,000 AVX-512 instructions and dies with SIGILL in
# ggml_cpu_init (`vpbroadcastd %edx,%ymm5`, an EVEX-only form) on an AVX2-only CPU such
# as the AMD EPYC here. The other libraries of the wheel (libggml-base, libllama) use
# no AVX-512. So instead of building the whole package from source (~40 CPU-minutes),
# this builds only the CPU backend (libggml-cpu, ~30 compile steps) from the same
# llama-cpp-python sdist with -march=native, links it against the wheel's libggml-base
# and puts it into a venv where the wheel is installed (~15 minutes on 2 busy cores).
#
# Usage: scripts/bench-llamacpp.sh [VENV] [native|portable]   (default: /tmp/llama-venv native)
# Then:  python3 scripts/bench-llamacpp.py --python VENV/bin/python
#   native: -march=native, for speed figures on this CPU;
#   portable: x86-64-v2 (SSE4.2, no AVX / FMA / F16C: ggml's scalar and SSE paths), a
#     backend that runs on any x86-64 CPU of the last 15 years, for CI (scripts/test-python.sh),
#     whose machine's CPU is not known in advance; slower, which the CI-sized tests allow.
# Idempotent: does nothing when VENV/bin/python already imports llama_cpp and runs it.
set -euo pipefail

VENV=${1:-/tmp/llama-venv}
CPU=${2:-native}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=${ESPALIER_TOOLS:-$ROOT/../shared/tools}
VERSION=0.3.36
SRC=${TMPDIR:-/tmp}/llama-cpp-cpu-$VERSION
WORK=$SRC/$CPU
case $CPU in
    native) ISA=(-DGGML_NATIVE=ON) ;;
    portable) ISA=(-DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_AVX_VNNI=OFF
        -DGGML_BMI2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF) ;;
    *) echo "unknown CPU build $CPU: expected native or portable" >&2; exit 2 ;;
esac
MODEL=$ROOT/static/models/SmolLM2-135M-Instruct.Q4_1.gguf

probe() {
    OMP_WAIT_POLICY=PASSIVE "$VENV/bin/python" - "$TOOLS" "$MODEL" <<'EOF' >/dev/null 2>&1
import sys
sys.path.insert(0, sys.argv[1])
import llamacpp_noamx  # noqa: F401
import llama_cpp
m = llama_cpp.Llama(model_path=sys.argv[2], n_threads=1, n_ctx=64, verbose=False)
m.eval(m.tokenize(b"def f(x):", add_bos=False))
EOF
}

if [ -x "$VENV/bin/python" ] && probe; then
    echo "llama.cpp already runs in $VENV"
    exit 0
fi

[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q numpy typing-extensions diskcache jinja2 cmake ninja
"$VENV/bin/pip" install -q --no-deps --force-reinstall "$TOOLS"/llama_cpp_python-$VERSION-*.whl

mkdir -p "$SRC" "$WORK"
if [ ! -d "$SRC/src" ]; then
    # Only this package as source: `--no-binary :all:` would also build its build
    # requirements (cmake, ~20 CPU-minutes) from source to prepare its metadata.
    "$VENV/bin/pip" download -q --no-deps --no-binary llama-cpp-python "llama-cpp-python==$VERSION" -d "$SRC"
    mkdir -p "$SRC/src.tmp"
    tar -xzf "$SRC"/llama_cpp_python-$VERSION.tar.gz -C "$SRC/src.tmp" --strip-components=1
    mv "$SRC/src.tmp" "$SRC/src"
fi
"$VENV/bin/cmake" -S "$SRC/src/vendor/llama.cpp" -B "$WORK/build" -G Ninja \
    -DCMAKE_MAKE_PROGRAM="$VENV/bin/ninja" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
    "${ISA[@]}" -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF \
    -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF >/dev/null
LIB=$("$VENV/bin/python" -c 'import os, importlib.util as u; print(os.path.join(os.path.dirname(u.find_spec("llama_cpp").origin), "lib"))')
# Only the CPU backend's objects (17 files); linked against the wheel's own libggml-base
# (same source version, so the same ABI) instead of building that too.
OBJS=$("$VENV/bin/ninja" -C "$WORK/build" -t commands ggml-cpu | grep -o -- '-o ggml/src/CMakeFiles/ggml-cpu.dir/[^ ]*' | sed 's/^-o //')
# shellcheck disable=SC2086
nice -n 10 "$VENV/bin/ninja" -C "$WORK/build" -j 2 $OBJS
GOMP=$(c++ -print-file-name=libgomp.so)
(cd "$WORK/build" && c++ -fPIC -O3 -DNDEBUG -shared -Wl,-soname,libggml-cpu.so.0 -o "$WORK/libggml-cpu.so" \
    $OBJS "$LIB/libggml-base.so.0" "$GOMP" -lpthread -Wl,-rpath,'$ORIGIN')
# A wheel holds plain copies, not links: replace all three names.
for name in libggml-cpu.so libggml-cpu.so.0 "$(basename "$(ls "$LIB"/libggml-cpu.so.0.*)")"; do
    cp "$WORK/libggml-cpu.so" "$LIB/$name"
done
probe && echo "llama.cpp runs in $VENV ($CPU libggml-cpu built in $WORK)"
