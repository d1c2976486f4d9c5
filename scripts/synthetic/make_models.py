#!/usr/bin/env python3
"""Tiny random-weight GGUFs for the golden tests against llama.cpp
(crates/model/tests/it/synthetic_golden.rs), and llama.cpp's logits on them.

Two models, each written in F32 with gguf-py and quantized by llama.cpp's own quantizer
(`llama_model_quantize`, `pure` so every matrix takes the named type; Q4_K_M without
`pure`, llama.cpp's usual mix of Q4_K and Q6_K):
- `llama`: 2 blocks, hidden 256, 4 heads / 2 KV heads, FFN 256, linear RoPE scaling
  (factor 4), untied `output.weight` (as DeepSeek-Coder);
- `qwen2`: 2 blocks, hidden 256, 4 heads / 2 KV heads, FFN 512, Q/K/V biases, rope
  theta 1e6, norm epsilon 1e-6, tied output (as Qwen2.5-Coder 0.5B-3B).
Sizes are the smallest that every K-quant accepts (rows of 256). The vocabulary is a
small SentencePiece one (320 tokens); token ids, not text, are fed to both engines.

For each file llama.cpp (one thread, F32 KV cache) evaluates a 32-token seeded prompt
and then 16 greedy steps, recording every step's full logits. Output, in OUT_DIR:
`<arch>-<FORMAT>.gguf` and `golden.json` ({"cases": [{"arch", "format", "file",
"prompt", "steps": [{"token", "logits"}]}]}).

Usage: scripts/synthetic/make-models.sh [OUT_DIR]   (default target/synthetic-gguf)
"""
import json
import os
import sys

import numpy as np

GGUF_PY, OUT = sys.argv[1], sys.argv[2]
sys.path.insert(0, GGUF_PY)
import gguf  # noqa: E402
import llama_cpp  # noqa: E402
import llamacpp_noamx  # noqa: E402,F401  (../shared/tools: no AMX/repack buffers, which crash here)

VOCAB = 320
FORMATS = [  # name, llama_ftype, pure
    ("F32", 0, True), ("F16", 1, True), ("Q8_0", 7, True), ("Q4_0", 2, True), ("Q4_1", 3, True),
    ("Q5_0", 8, True), ("Q5_1", 9, True), ("Q4_K", 14, True), ("Q5_K", 16, True), ("Q6_K", 18, True),
    ("Q4_K_M", 15, False),
]
ARCHS = {
    "llama": dict(hidden=256, heads=4, kv_heads=2, ffn=256, layers=2, rope_base=10000.0, eps=1e-5,
                  rope_scale=4.0, tied=False, bias=False),
    "qwen2": dict(hidden=256, heads=4, kv_heads=2, ffn=512, layers=2, rope_base=1000000.0, eps=1e-6,
                  rope_scale=None, tied=True, bias=True),
}


def add_vocab(w):
    tokens, scores, types = ["<unk>", "<s>", "</s>"], [0.0, 0.0, 0.0], [2, 3, 3]
    for b in range(256):
        tokens.append(f"<0x{b:02X}>"); scores.append(0.0); types.append(6)
    letters = "abcdefghijklmnopqrstuvwxyz"
    i = 0
    while len(tokens) < VOCAB:
        piece = "\u2581" + letters[i % 26] + (letters[(i // 26) % 26] if i >= 26 else "")
        tokens.append(piece); scores.append(-float(i)); types.append(1)
        i += 1
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(False)


def write_f32(arch, p, path, rng):
    w = gguf.GGUFWriter(path, arch)
    h, d = p["hidden"], p["hidden"] // p["heads"]
    w.add_context_length(256)
    w.add_embedding_length(h)
    w.add_block_count(p["layers"])
    w.add_feed_forward_length(p["ffn"])
    w.add_head_count(p["heads"])
    w.add_head_count_kv(p["kv_heads"])
    w.add_rope_dimension_count(d)
    w.add_rope_freq_base(p["rope_base"])
    w.add_layer_norm_rms_eps(p["eps"])
    w.add_vocab_size(VOCAB)
    w.add_file_type(0)
    if p["rope_scale"]:
        w.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)
        w.add_rope_scaling_factor(p["rope_scale"])
    add_vocab(w)

    def mat(name, out, inp, gain=1.0):
        w.add_tensor(name, (rng.standard_normal((out, inp)) * gain / np.sqrt(inp)).astype(np.float32))

    def vec(name, n, mean, std):
        w.add_tensor(name, (mean + std * rng.standard_normal(n)).astype(np.float32))

    # Small embeddings so the blocks' outputs, not the input token's own row, decide the
    # logits of the tied model (with std 1 the tied qwen2 repeats its input token).
    w.add_tensor("token_embd.weight", (0.1 * rng.standard_normal((VOCAB, h))).astype(np.float32))
    for i in range(p["layers"]):
        kv = p["kv_heads"] * d
        vec(f"blk.{i}.attn_norm.weight", h, 1.0, 0.1)
        mat(f"blk.{i}.attn_q.weight", h, h, 2.0)
        mat(f"blk.{i}.attn_k.weight", kv, h, 2.0)
        mat(f"blk.{i}.attn_v.weight", kv, h)
        if p["bias"]:
            vec(f"blk.{i}.attn_q.bias", h, 0.0, 0.5)
            vec(f"blk.{i}.attn_k.bias", kv, 0.0, 0.5)
            vec(f"blk.{i}.attn_v.bias", kv, 0.0, 0.5)
        mat(f"blk.{i}.attn_output.weight", h, h)
        vec(f"blk.{i}.ffn_norm.weight", h, 1.0, 0.1)
        mat(f"blk.{i}.ffn_gate.weight", p["ffn"], h)
        mat(f"blk.{i}.ffn_up.weight", p["ffn"], h)
        mat(f"blk.{i}.ffn_down.weight", h, p["ffn"])
    vec("output_norm.weight", h, 1.0, 0.1)
    if not p["tied"]:
        mat("output.weight", VOCAB, h, 4.0)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def quantize(src, dst, ftype, pure):
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.pure = pure
    params.nthread = 2
    rc = llama_cpp.llama_model_quantize(src.encode(), dst.encode(), params)
    assert rc == 0, f"quantize {dst}: {rc}"


def golden(path, prompt, steps):
    llm = llama_cpp.Llama(model_path=path, n_ctx=128, n_batch=64, n_threads=1, n_threads_batch=1, logits_all=True,
                          type_k=0, type_v=0, verbose=False)  # 0 = GGML_TYPE_F32 KV cache
    llm.eval(prompt)
    out = []
    for _ in range(steps + 1):
        logits = np.array(llm.scores[llm.n_tokens - 1], dtype=np.float32)
        tok = int(np.argmax(logits))
        out.append({"token": tok, "logits": [round(float(x), 6) for x in logits]})
        if len(out) <= steps:
            llm.eval([tok])
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    prompt = [int(x) for x in np.random.default_rng(7).integers(3, VOCAB, size=32)]
    cases = []
    for arch, p in ARCHS.items():
        src = os.path.join(OUT, f"{arch}-F32.gguf")
        write_f32(arch, p, src, np.random.default_rng(17 if arch == "llama" else 18))
        for name, ftype, pure in FORMATS:
            dst = os.path.join(OUT, f"{arch}-{name}.gguf")
            if name != "F32":
                quantize(src, dst, ftype, pure)
            cases.append({"arch": arch, "format": name, "file": os.path.basename(dst), "prompt": prompt,
                          "steps": golden(dst, prompt, 16)})
            print(arch, name, os.path.getsize(dst), "bytes; greedy", [s["token"] for s in cases[-1]["steps"]])
    with open(os.path.join(OUT, "golden.json"), "w") as f:
        json.dump({"cases": cases}, f)


main()
