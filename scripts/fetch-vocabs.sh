#!/usr/bin/env bash
# Places llama.cpp's vocabulary-only GGUFs and their tokenizer test vectors (.inp/.out)
# for Qwen2, DeepSeek-Coder and StarCoder at static/models/vocab/ (git-ignored), from
# the llama-cpp-python 0.3.36 source distribution on PyPI (76 MB download; the files
# are 8.8 MB). Checked by SHA-256. Does nothing when they are there.
# Used by crates/model/tests/it/vocab_golden.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=static/models/vocab
SUMS="44c2f46b715f585c6ab513970e8a006bfa5badd6108560054921cf598d154d8c  ggml-vocab-qwen2.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-qwen2.gguf.inp
de785bb305cc6fa9d43908ed5da337f853c0b79e971348fcfb9f0915a39c5363  ggml-vocab-qwen2.gguf.out
91cb1379f2e33af1c4866b194622b7a0e12e8f0c9dba7ba2f10d55978730bec1  ggml-vocab-deepseek-coder.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-deepseek-coder.gguf.inp
c2cea4584b0487e67fbd81f491bb44f89238722062126120d2c412edb3dbd853  ggml-vocab-deepseek-coder.gguf.out
fedb892b4e1bd3c1f2fcdae356440b14fb458f4264d586e5c987ed93df4e174d  ggml-vocab-starcoder.gguf
be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0  ggml-vocab-starcoder.gguf.inp
3ef12183c57ad076f9defd8e5eb454f509f5f0865cad35646abb4c4b2d2c5764  ggml-vocab-starcoder.gguf.out"
if [ -d "$DEST" ] && (cd "$DEST" && echo "$SUMS" | sha256sum --check --quiet --status 2>/dev/null); then
  exit 0
fi
mkdir -p "$DEST"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SDIST=${TMPDIR:-/tmp}/llama-cpp-cpu-0.3.36/llama_cpp_python-0.3.36.tar.gz
SDIST_URL=https://files.pythonhosted.org/packages/ec/e9/e7de2b0463ea3ffbf0ede6cb21b58c1258a8f6521aae45ca773a59fe7cf3/llama_cpp_python-0.3.36.tar.gz
SDIST_SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
if [ ! -f "$SDIST" ]; then
  echo "fetching the llama-cpp-python 0.3.36 sdist from PyPI (76 MB)..." >&2
  # The file itself, by its PyPI address and digest: `pip download --no-binary :all:`
  # prepares the package's metadata first, building its build dependencies (CMake) from
  # source: over 14 minutes on 2 cores (stopped there) for files this script only unpacks.
  SDIST="$tmp/llama_cpp_python-0.3.36.tar.gz"
  python3 -c 'import shutil, sys, urllib.request; shutil.copyfileobj(urllib.request.urlopen(sys.argv[1], timeout=180), open(sys.argv[2], "wb"))' "$SDIST_URL" "$SDIST"
  echo "$SDIST_SHA256  $SDIST" | sha256sum --check --quiet
fi
files=$(echo "$SUMS" | awk '{print "llama_cpp_python-0.3.36/vendor/llama.cpp/models/" $2}')
# shellcheck disable=SC2086
tar -xzf "$SDIST" -C "$tmp" $files
for f in $(echo "$SUMS" | awk '{print $2}'); do
  mv "$tmp/llama_cpp_python-0.3.36/vendor/llama.cpp/models/$f" "$DEST/$f"
done
(cd "$DEST" && echo "$SUMS" | sha256sum --check --quiet)
echo "vocabularies at $DEST" >&2
