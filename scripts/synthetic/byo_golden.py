#!/usr/bin/env python3
"""llama.cpp's greedy tokens on the synthetic models in real vocabularies, the oracle of
crates/cli/tests/it/byo_model.rs (`espalier generate --model FILE` end to end).

The models are written by `espalier_model::synthetic` (the example `synthetic_model`,
run by byo-golden.sh; the same code the test runs, so the same bytes: the checksum
below is recomputed here and stored). For each, llama.cpp (one thread, F32 KV cache)
tokenizes the prompt as `llama-cli` does (`add_bos` as the vocabulary says, special
tokens parsed), evaluates it, then takes 16 greedy steps over all rows of the output
(the qwen2 file has 151,936, the `[PADn]` rows included). Recorded per step: the token
and the gap between llama.cpp's best and second-best logit (a near tie would be no
fault of either engine).

Usage: scripts/synthetic/byo-golden.sh   (writes crates/cli/tests/data/byo-golden.json)
"""
import json
import sys

import numpy as np

OUT, CASES = sys.argv[1], sys.argv[2:]
import llama_cpp  # noqa: E402
import llamacpp_noamx  # noqa: E402,F401  (../shared/tools: no AMX/repack buffers, which crash here)

PROMPT = "def fibonacci(n):\n    if n < 2:\n        return n\n    return"
STEPS = 16


def checksum(path):
    data = open(path, "rb").read()
    data += b"\0" * (-len(data) % 8)
    words = np.frombuffer(data, dtype="<u8")
    odd = np.arange(len(words), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    with np.errstate(over="ignore"):
        return int(np.sum(words * odd, dtype=np.uint64))


def greedy(path):
    llm = llama_cpp.Llama(model_path=path, n_ctx=256, n_batch=64, n_threads=1, n_threads_batch=1, logits_all=True,
                          type_k=0, type_v=0, verbose=False)  # 0 = GGML_TYPE_F32 KV cache
    ids = llm.tokenize(PROMPT.encode(), add_bos=True, special=True)
    llm.eval(ids)
    tokens, gaps = [], []
    for _ in range(STEPS):
        logits = np.array(llm.scores[llm.n_tokens - 1], dtype=np.float32)
        order = np.argsort(-logits)
        tokens.append(int(order[0]))
        gaps.append(round(float(logits[order[0]] - logits[order[1]]), 6))
        llm.eval([tokens[-1]])
    return ids, tokens, gaps


def main():
    cases = []
    for spec in CASES:
        arch, vocab, path = spec.split(":")
        ids, tokens, gaps = greedy(path)
        cases.append({"arch": arch, "vocab": vocab, "checksum": str(checksum(path)), "prompt": PROMPT,
                      "prompt_ids": ids, "greedy": tokens, "gaps": gaps})
        print(arch, vocab, "prompt", ids, "greedy", tokens, "smallest gap", min(gaps))
    with open(OUT, "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")


main()
