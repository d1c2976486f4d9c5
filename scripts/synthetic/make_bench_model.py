#!/usr/bin/env python3
"""A random-weight `llama` GGUF scaled to SmolLM2-135M's size, for speed per format
against llama.cpp (scripts/bench-llamacpp.py --model FILE): 30 blocks, hidden 512
(SmolLM2's 576 is not a multiple of the K-quants' 256-value rows, so llama.cpp would
fall back to other types), 8 query / 4 KV heads of 64, FFN 1536, SmolLM2's own
tokenizer and vocabulary (49,152 tokens, copied from static/models), tied output.
120M parameters. Written in F16 by gguf-py, then quantized by llama.cpp to each
format named on the command line.

Usage: PYTHONPATH=../shared/tools /tmp/llama-venv/bin/python \
           scripts/synthetic/make_bench_model.py GGUF_PY_DIR OUT_DIR Q4_K Q8_0 Q4_1 ...
"""
import os
import sys

import numpy as np

GGUF_PY, OUT, FORMATS = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.path.insert(0, GGUF_PY)
import gguf  # noqa: E402
import llama_cpp  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SMOLLM = os.path.join(ROOT, "static", "models", "SmolLM2-135M-Instruct.Q4_1.gguf")
FTYPES = {"F16": 1, "Q8_0": 7, "Q4_0": 2, "Q4_1": 3, "Q5_0": 8, "Q5_1": 9, "Q4_K": 14, "Q5_K": 16, "Q6_K": 18,
          "Q4_K_M": 15}
H, HEADS, KV, FFN, LAYERS = 512, 8, 4, 1536, 30


def field(r, key):
    f = r.fields[key]
    if f.types[0] == gguf.GGUFValueType.ARRAY:
        if f.types[1] == gguf.GGUFValueType.STRING:
            return [bytes(f.parts[i]).decode("utf-8") for i in f.data]
        return [f.parts[i].tolist()[0] for i in f.data]
    if f.types[0] == gguf.GGUFValueType.STRING:
        return bytes(f.parts[f.data[0]]).decode("utf-8")
    return f.parts[f.data[0]].tolist()[0]


def main():
    os.makedirs(OUT, exist_ok=True)
    src = os.path.join(OUT, "bench-F16.gguf")
    r = gguf.GGUFReader(SMOLLM)
    tokens = field(r, "tokenizer.ggml.tokens")
    w = gguf.GGUFWriter(src, "llama")
    w.add_context_length(2048)
    w.add_embedding_length(H)
    w.add_block_count(LAYERS)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV)
    w.add_rope_dimension_count(H // HEADS)
    w.add_rope_freq_base(100000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(len(tokens))
    w.add_file_type(1)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("smollm")
    w.add_token_list(tokens)
    w.add_token_types(field(r, "tokenizer.ggml.token_type"))
    w.add_token_merges(field(r, "tokenizer.ggml.merges"))
    w.add_bos_token_id(field(r, "tokenizer.ggml.bos_token_id"))
    w.add_eos_token_id(field(r, "tokenizer.ggml.eos_token_id"))
    rng = np.random.default_rng(3)

    def mat(name, out, inp):
        w.add_tensor(name, (rng.standard_normal((out, inp), dtype=np.float32) / np.sqrt(inp)).astype(np.float16))

    w.add_tensor("token_embd.weight", (0.1 * rng.standard_normal((len(tokens), H), dtype=np.float32)).astype(np.float16))
    for i in range(LAYERS):
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(H, dtype=np.float32))
        mat(f"blk.{i}.attn_q.weight", H, H)
        mat(f"blk.{i}.attn_k.weight", KV * H // HEADS, H)
        mat(f"blk.{i}.attn_v.weight", KV * H // HEADS, H)
        mat(f"blk.{i}.attn_output.weight", H, H)
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(H, dtype=np.float32))
        mat(f"blk.{i}.ffn_gate.weight", FFN, H)
        mat(f"blk.{i}.ffn_up.weight", FFN, H)
        mat(f"blk.{i}.ffn_down.weight", H, FFN)
    w.add_tensor("output_norm.weight", np.ones(H, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    for name in FORMATS:
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = FTYPES[name]
        params.pure = name != "Q4_K_M"
        params.nthread = 2
        dst = os.path.join(OUT, f"bench-{name}.gguf")
        assert llama_cpp.llama_model_quantize(src.encode(), dst.encode(), params) == 0, name
        print(name, dst, os.path.getsize(dst))


main()
