"""Scratch replay used to find where the mask time went (issue 19, branch pkg): HumanEval
prompt + canonical solution tokens (the GGUF vocabulary through llama-cpp-python, vocab
only) fed to espalier.Constraint.grammar(python_lines) and llguidance; prints fill_mask
and mask_logits CPU p50/p90/p99 (thread time). Usage: python replay_masks.py [N] [both|esp|ll]
in a venv with espalier, llama-cpp-python and llguidance 1.9; paths are this machine's."""
import gzip, json, sys, time, os
import numpy as np
import espalier
import llama_cpp
import llguidance, llguidance.numpy as lln
from llguidance.llamacpp import lltokenizer_from_vocab

MODEL = "/work/wt-go/static/models/SmolLM2-135M-Instruct.Q4_1.gguf"
DATA = "/work/shared/data/HumanEval.jsonl.gz"
n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
mode = sys.argv[2] if len(sys.argv) > 2 else "both"
llm = llama_cpp.Llama(model_path=MODEL, vocab_only=True, verbose=False)
vocab = espalier.Vocabulary.from_gguf(MODEL)
g = espalier.python_lines_grammar()
lltok = lltokenizer_from_vocab(llama_cpp.llama_model_get_vocab(llm.model))
llg = llguidance.LLMatcher.grammar_from_lark(g)
with gzip.open(DATA, "rt") as f:
    probs = [json.loads(l) for _, l in zip(range(n), f)]
mask = np.zeros(len(vocab), np.bool_)
row = np.zeros(len(vocab), np.float32)
bm = lln.allocate_token_bitmask(1, lltok.vocab_size)
E, L, A = [], [], []
slow = []
for p in probs:
    prompt = p["prompt"]
    ids = llm.tokenize(p["canonical_solution"].encode(), add_bos=False, special=False)
    c = espalier.Constraint.grammar(vocab, g, prompt=prompt)
    ll = llguidance.LLMatcher(lltok, llg, log_level=0)
    ll.consume_tokens(lltok.tokenize_str(prompt))
    for t in ids:
        if mode in ("both", "esp"):
            t0 = time.thread_time_ns(); c.fill_mask(mask); t1 = time.thread_time_ns()
            E.append(t1 - t0)
            row[:] = 0; t2 = time.thread_time_ns(); c.mask_logits(row); t3 = time.thread_time_ns(); A.append(t3 - t2)
            slow.append((t1 - t0, int(mask.sum()), c.text[-30:]))
            if not mask[t]: print("esp refuses", t); break
            c.commit(t)
        if mode in ("both", "ll"):
            t0 = time.thread_time_ns(); lln.fill_next_token_bitmask(ll, bm, 0); t1 = time.thread_time_ns()
            L.append(t1 - t0)
            ll.consume_token(t)
pc = lambda xs, q: round(float(np.percentile(xs, q)) / 1000, 1) if xs else None
print(json.dumps({"steps": len(E) or len(L), "esp_mask": [pc(E, 50), pc(E, 90), pc(E, 99)], "esp_mask_logits": [pc(A, 50), pc(A, 99)], "ll": [pc(L, 50), pc(L, 90), pc(L, 99)], "load": os.getloadavg()}))
slow.sort(key=lambda x: -x[0])
for s in slow[:8]: print(s)
import collections
# distribution by allowed count bucket
b = collections.defaultdict(list)
for tt, k, _ in slow: b[k // 10000].append(tt)
for k in sorted(b): print(k * 10000, len(b[k]), pc(b[k], 50))
