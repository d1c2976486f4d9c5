"""Same-run comparison of Espalier and llguidance as logits processors.

``python -m espalier.bench --model M.gguf --data HumanEval.jsonl.gz`` prints one JSON
line. Both run the same Lark grammar (:func:`espalier.python_lines_grammar`: Python
without real indentation, which both accept), on the same model vocabulary, the same
prompts and the same tokens:

1. the tokens: for each of the first ``--prompts`` HumanEval prompts, llama.cpp
   (llama-cpp-python) generates greedily under Espalier's processor for that grammar,
   ``--max-tokens`` tokens (no stop strings: SmolLM2 often starts with a ``# test``
   line, which HumanEval's stop strings would cut at once);
2. the replay: each token sequence is fed to an Espalier constraint and to an
   llguidance ``LLMatcher`` (prompt consumed first, untimed), and every step is timed
   as a logits processor runs it: commit the previous token, compute the mask, apply
   it to a float32 logits row of the vocabulary's width. Espalier: ``commit`` +
   ``mask_logits``; llguidance: ``consume_token`` + ``fill_next_token_bitmask`` +
   ``apply_token_bitmask_inplace`` (its NumPy integration). The mask alone is timed
   too (Espalier: a second computation, ``fill_mask`` into a bool array, which keeps
   no cache; llguidance: the ``fill_next_token_bitmask`` part of the step).

Reported: p50 / p99 in microseconds per token for both (wall clock, and the
thread's CPU time for the whole step, ``cpu_*``, which a loaded machine's preemptions
do not inflate), and the ratios Espalier / llguidance (< 1: Espalier is faster). Steps where the two disagree on
whether the token is allowed are counted (``disagreements``), never hidden.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import time

import numpy as np

import espalier


def _percentile(xs, q):
    return float(np.percentile(np.asarray(xs, dtype=np.float64), q)) if xs else float("nan")


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def generate_tokens(llm, llama_cpp, vocab, grammar, prompts, max_tokens, table="lr1"):
    """Greedy generations under Espalier's processor: (prompt, token ids) pairs, the ids
    being those the processor committed (llama.cpp's own sampled tokens)."""
    from .llama_cpp import LogitsProcessor

    runs = []
    for prompt in prompts:
        # No wrap-up: the replay compares the plain masks with llguidance's (which has none).
        proc = LogitsProcessor(espalier.Constraint.grammar(vocab, grammar, prompt=prompt, table=table), wrap_up=None)
        llm.create_completion(
            prompt, max_tokens=max_tokens, temperature=0.0,
            logits_processor=llama_cpp.LogitsProcessorList([proc]),
        )
        runs.append((prompt, list(proc.tokens)))
    return runs


def replay(vocab, grammar, lltok, runs, logits_row, table="lr1"):
    """Times both processors step by step over the same tokens."""
    import llguidance
    import llguidance.numpy as lln

    n = len(vocab)
    ll_grammar = llguidance.LLMatcher.grammar_from_lark(grammar)
    bitmask = lln.allocate_token_bitmask(1, lltok.vocab_size)
    mask = np.zeros(n, np.bool_)
    row = np.empty(n, np.float32)
    t = {k: [] for k in ("esp_total", "esp_mask", "ll_total", "ll_mask", "esp_cpu", "ll_cpu")}
    cpu = time.thread_time_ns
    disagreements = steps = 0
    for prompt, ids in runs:
        esp = espalier.Constraint.grammar(vocab, grammar, prompt=prompt, table=table)
        ll = llguidance.LLMatcher(lltok, ll_grammar, log_level=0)
        if ll.is_error():
            raise RuntimeError(f"llguidance refuses the grammar: {ll.get_error()}")
        prompt_ids = lltok.tokenize_str(prompt)
        if not ll.consume_tokens(prompt_ids) or ll.is_error():
            raise RuntimeError(f"llguidance refuses the prompt: {ll.get_error()}")
        prev = None
        for tok in ids:
            # Espalier: what its processor does per step.
            row[:] = logits_row
            c0 = cpu()
            t0 = time.perf_counter_ns()
            if prev is not None:
                esp.commit(prev)
            esp.mask_logits(row)
            t1 = time.perf_counter_ns()
            c1 = cpu()
            esp.fill_mask(mask)
            t2 = time.perf_counter_ns()
            esp_ok = bool(mask[tok])
            # llguidance: the same step with its NumPy integration (one mask computation,
            # timed in parts: commit + mask, then apply).
            row[:] = logits_row
            c3 = cpu()
            t3 = time.perf_counter_ns()
            if prev is not None:
                ll.consume_token(prev)
            t4 = time.perf_counter_ns()
            lln.fill_next_token_bitmask(ll, bitmask, 0)
            t5 = time.perf_counter_ns()
            lln.apply_token_bitmask_inplace(row, bitmask)
            t6 = time.perf_counter_ns()
            c6 = cpu()
            ll_ok = bool((int(bitmask[0, tok // 32]) >> (tok % 32)) & 1)
            t["esp_total"].append(t1 - t0)
            t["esp_mask"].append(t2 - t1)
            t["ll_total"].append(t6 - t3)
            t["ll_mask"].append(t5 - t4)
            t["esp_cpu"].append(c1 - c0)
            t["ll_cpu"].append(c6 - c3)
            steps += 1
            if esp_ok != ll_ok:
                disagreements += 1
            if not (esp_ok and ll_ok):
                break  # one refused the token: the sequence ends here for both
            prev = tok
    return t, steps, disagreements


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # The repository root: this file's (maturin develop), else the working directory
    # (an installed wheel run from the repository).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__)))))
    if not os.path.exists(os.path.join(root, "static")):
        root = os.getcwd()
    p.add_argument("--model", default=os.path.join(root, "static/models/SmolLM2-135M-Instruct.Q4_1.gguf"))
    p.add_argument("--data", default=os.path.join(root, "..", "shared", "data", "HumanEval.jsonl.gz"))
    p.add_argument("--prompts", type=int, default=10)
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--table", default="lr1", choices=["lr1", "pager", "lalr"],
                   help="Espalier's LR table for the grammar (lr1: exact acceptable sets, the default)")
    args = p.parse_args(argv)

    import llama_cpp
    import llguidance
    from llguidance.llamacpp import lltokenizer_from_vocab

    with gzip.open(args.data, "rt") as f:
        prompts = [json.loads(line)["prompt"] for _, line in zip(range(args.prompts), f)]
    llm = llama_cpp.Llama(model_path=args.model, n_ctx=2048, n_threads=2, verbose=False, seed=0)
    vocab = espalier.Vocabulary.from_gguf(args.model)
    if len(vocab) != llm.n_vocab():
        raise espalier.VocabMismatchError(f"vocabulary {len(vocab)} != model {llm.n_vocab()}")
    grammar = espalier.python_lines_grammar()
    lltok = lltokenizer_from_vocab(llama_cpp.llama_model_get_vocab(llm.model))

    t0 = time.perf_counter()
    runs = generate_tokens(llm, llama_cpp, vocab, grammar, prompts, args.max_tokens, args.table)
    gen_s = time.perf_counter() - t0
    # A real logits row (the model's output after the first prompt) to mask.
    llm.reset()
    llm.eval(llm.tokenize(prompts[0].encode(), add_bos=False))
    logits_row = np.array(llm.scores[llm.n_tokens - 1], dtype=np.float32)
    t, steps, disagreements = replay(vocab, grammar, lltok, runs, logits_row, args.table)

    def us(xs, q):
        return round(_percentile(xs, q) / 1000.0, 1)

    result = {
        "bench": "espalier-vs-llguidance",
        "grammar": "python_lines.lark",
        "table": args.table,
        "prompts": len(prompts),
        "steps": steps,
        "disagreements": disagreements,
        "espalier": {"p50_us": us(t["esp_total"], 50), "p99_us": us(t["esp_total"], 99),
                     "mask_p50_us": us(t["esp_mask"], 50), "mask_p99_us": us(t["esp_mask"], 99),
                     "cpu_p50_us": us(t["esp_cpu"], 50), "cpu_p99_us": us(t["esp_cpu"], 99)},
        "llguidance": {"version": llguidance.__version__ if hasattr(llguidance, "__version__") else "?",
                       "p50_us": us(t["ll_total"], 50), "p99_us": us(t["ll_total"], 99),
                       "mask_p50_us": us(t["ll_mask"], 50), "mask_p99_us": us(t["ll_mask"], 99),
                       "cpu_p50_us": us(t["ll_cpu"], 50), "cpu_p99_us": us(t["ll_cpu"], 99)},
        "generation_s": round(gen_s, 1),
        "cpu": _cpu_name(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }
    e, l = result["espalier"], result["llguidance"]
    result["ratio_p50"] = round(e["p50_us"] / l["p50_us"], 3) if l["p50_us"] else None
    result["ratio_p99"] = round(e["p99_us"] / l["p99_us"], 3) if l["p99_us"] else None
    result["mask_ratio_p50"] = round(e["mask_p50_us"] / l["mask_p50_us"], 3) if l["mask_p50_us"] else None
    result["mask_ratio_p99"] = round(e["mask_p99_us"] / l["mask_p99_us"], 3) if l["mask_p99_us"] else None
    result["cpu_ratio_p50"] = round(e["cpu_p50_us"] / l["cpu_p50_us"], 3) if l["cpu_p50_us"] else None
    result["cpu_ratio_p99"] = round(e["cpu_p99_us"] / l["cpu_p99_us"], 3) if l["cpu_p99_us"] else None
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
