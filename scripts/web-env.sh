# The environment of the scripts that build the playground and drive it in a browser
# (sourced by browser-test.sh and bench-browser.sh): the repository root as the working
# directory ($ROOT), the npm tools and cargo's on PATH, the target directory
# ($TARGET_DIR, exported as CARGO_TARGET_DIR), and wasm SIMD for the wasm32 build (every
# browser with WebGPU has it: it vectorises the CPU backend's matmuls; serve.sh and
# build-web.sh set the same flags, so trunk and these scripts share the build cache).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
export CARGO_TARGET_DIR=$TARGET_DIR
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS=${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:--C target-feature=+simd128}
