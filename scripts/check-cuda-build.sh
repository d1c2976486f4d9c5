#!/usr/bin/env bash
# The CUDA build check (issue 20), kept out of scripts/test.sh (it is heavy on 2 cores):
#   1. scripts/setup-cuda.sh (Debian LLVM 22 in place of tracel-llvm's download);
#   2. builds `espalier` with `--features cuda` in its own target directory;
#   3. runs the no-device test (crates/cli/tests/it/backend_fallback.rs) against that binary:
#      `--backend cuda` must exit 2 naming the missing driver, `--backend cuda,ndarray`
#      must fall back to the CPU with the CPU's greedy tokens; never a panic;
#   4. builds the CPU-vs-CUDA agreement test binary (not run: it needs a GPU) and packs
#      both binaries, stripped, with scripts/check-cuda-gpu.sh into
#      $CARGO_TARGET_DIR/espalier-cuda.tar.zst, to carry to a GPU machine without Rust.
# Prints the time of each step. `--no-bundle` stops after step 3.
set -euo pipefail
cd "$(dirname "$0")/.."

bundle=1
[ "${1:-}" = "--no-bundle" ] && bundle=0

export CARGO_TARGET_DIR=${ESPALIER_CUDA_TARGET_DIR:-$PWD/target/cuda}
step() { printf '\n== %s (%s, load %s)\n' "$1" "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)"; }
timed() {
    local t0=$SECONDS
    "$@"
    # On stderr: the bundle step pipes the command's stdout into zstd.
    printf -- '-- %ds: %s\n' $((SECONDS - t0)) "$*" >&2
}

step "setup"
timed bash scripts/setup-cuda.sh

step "build espalier --features cuda (target dir $CARGO_TARGET_DIR)"
timed cargo build --release -p espalier-cli --features cuda

step "no-device test"
# The test runs the binary on the real model (CPU fallback): fetch it on a fresh clone.
timed bash scripts/fetch-model.sh
timed cargo test --release -p espalier-cli --features cuda --test it backend_fallback::

if [ $bundle = 1 ]; then
    step "agreement test binary (runs on a GPU machine)"
    # The crate's one integration-test binary (`it`); check-cuda-gpu.sh runs its
    # `backend_agreement::` tests alone.
    timed cargo test --release -p espalier-model --features cuda --test it --no-run
    agreement=$(cargo test --release -p espalier-model --features cuda --test it --no-run --message-format=json 2>/dev/null \
        | sed -n 's/.*"executable":"\([^"]*\/it-[^"]*\)".*/\1/p' | tail -1)
    [ -x "$agreement" ] || { echo "check-cuda-build: the agreement test binary was not found" >&2; exit 1; }

    step "bundle"
    dir=$CARGO_TARGET_DIR/espalier-cuda
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$CARGO_TARGET_DIR/release/espalier" "$dir/espalier"
    cp "$agreement" "$dir/backend_agreement"
    cp scripts/check-cuda-gpu.sh "$dir/"
    # libdevice, which the LLVM backend links into kernels calling exp / ln: a GPU machine
    # with a driver and no toolkit has none (check-cuda-gpu.sh --bundle points CUDA_PATH here).
    tools=$(bash scripts/cuda-tools.sh)
    mkdir -p "$dir/cuda/nvvm/libdevice"
    cp "$tools/nvvm/libdevice/libdevice.10.bc" "$dir/cuda/nvvm/libdevice/"
    strip "$dir/espalier" "$dir/backend_agreement"
    # --long=28: the two binaries share most of their bytes (LLVM, burn), 256 MB apart at
    # most; a long window finds them (37.5 MB instead of 48.3), and the reader then
    # needs `zstd -d --long=28`.
    timed tar -C "$CARGO_TARGET_DIR" -cf - espalier-cuda | zstd -q -19 --long=28 -T0 -f -o "$CARGO_TARGET_DIR/espalier-cuda.tar.zst"
    ls -l "$dir" "$CARGO_TARGET_DIR/espalier-cuda.tar.zst"
    echo "On the GPU machine (carry zstd too if it has none): zstd -d --long=28 -c espalier-cuda.tar.zst | tar -xf - && bash espalier-cuda/check-cuda-gpu.sh --bundle espalier-cuda --model PATH/TO/SmolLM2-135M-Instruct.Q4_1.gguf"
fi
echo "check-cuda-build: passed"
