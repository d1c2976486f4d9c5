#!/usr/bin/env python3
"""Writes the reference dequantization vectors of crates/model/tests/it/quant_reference.rs.

For each ggml block type: a few blocks of random bytes (f16 scale fields set to finite
random halves, every other byte random), and their values as dequantized by gguf-py's
`gguf.quants.dequantize` (numpy; an implementation independent of ours). Written to
crates/model/tests/data/quant/<TYPE>.bin (the blocks) and <TYPE>.f32 (little-endian
floats). Deterministic (seeded).

Usage: PY=/tmp/llama-venv/bin/python  (numpy, pyyaml, tqdm)
       $PY scripts/synthetic/quant_reference.py GGUF_PY_DIR
GGUF_PY_DIR: gguf-py of the llama.cpp sources, e.g. the llama-cpp-python sdist's
vendor/llama.cpp/gguf-py (scripts/bench-llamacpp.sh unpacks it under
/tmp/llama-cpp-cpu-0.3.36/src).
"""
import os
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
from gguf import GGMLQuantizationType as T  # noqa: E402
from gguf.quants import dequantize  # noqa: E402

# (type, blocks, byte offsets of f16 scale fields within a block)
TYPES = [
    (T.Q4_0, 8, [0]),
    (T.Q4_1, 8, [0, 2]),
    (T.Q5_0, 8, [0]),
    (T.Q5_1, 8, [0, 2]),
    (T.Q8_0, 8, [0]),
    (T.Q4_K, 3, [0, 2]),
    (T.Q5_K, 3, [0, 2]),
    (T.Q6_K, 3, [208]),
]
SIZES = {T.Q4_0: (32, 18), T.Q4_1: (32, 20), T.Q5_0: (32, 22), T.Q5_1: (32, 24), T.Q8_0: (32, 34),
         T.Q4_K: (256, 144), T.Q5_K: (256, 176), T.Q6_K: (256, 210)}

out_dir = os.path.join(os.path.dirname(__file__), "..", "..", "crates", "model", "tests", "data", "quant")
os.makedirs(out_dir, exist_ok=True)
rng = np.random.default_rng(17)
for qtype, blocks, halves in TYPES:
    n, size = SIZES[qtype]
    raw = rng.integers(0, 256, size=blocks * size, dtype=np.uint8)
    for b in range(blocks):
        for off in halves:
            h = np.array([rng.uniform(-0.1, 0.1)], dtype=np.float16).view(np.uint8)
            raw[b * size + off: b * size + off + 2] = h
    values = dequantize(raw, qtype).astype("<f4").reshape(-1)
    assert values.size == blocks * n and np.isfinite(values).all()
    raw.tofile(os.path.join(out_dir, f"{qtype.name}.bin"))
    values.tofile(os.path.join(out_dir, f"{qtype.name}.f32"))
    print(qtype.name, blocks, "blocks")
