#!/usr/bin/env python3
"""Speed of our model (crates/model, example `bench`) against llama.cpp, measured
interleaved in one run on this machine, same prompt, same thread count.

The machine is shared, so absolute figures are noisy; the ratios of rounds run back to
back are the figure to report.

Usage (after `pip install ../shared/tools/llama_cpp_python-*.whl`):
    python3 scripts/bench-llamacpp.py [--rounds 5] [--prompt-tokens 64] [--decode 32] [--threads 2]
It builds the example once (`cargo build --release -p espalier-model --example bench`;
set CARGO_TARGET_DIR to reuse a target dir) and prints one line per round and the
median ratios.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "static/models/SmolLM2-135M-Instruct.Q4_1.gguf")
TOOLS = os.path.join(ROOT, "..", "shared", "tools")
# Same text as crates/model/examples/bench.rs.
TEXT = "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n\n\nclass Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n        self.items.append(item)\n\n    def pop(self):\n        return self.items.pop()\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--prompt-tokens", type=int, default=64)
    ap.add_argument("--decode", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--backend", default="ndarray")
    args = ap.parse_args()

    # Spinning OpenMP threads collapse throughput on a shared 2-core machine.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ["RAYON_NUM_THREADS"] = str(args.threads)
    sys.path.insert(0, TOOLS)
    import llamacpp_noamx  # noqa: F401  (turns off the AMX buffers that crash on batched prompts)
    import llama_cpp

    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "espalier-model", "--example", "bench"],
                   cwd=ROOT, check=True)
    ours_bin = os.path.join(target, "release", "examples", "bench")

    llm = llama_cpp.Llama(model_path=MODEL, n_threads=args.threads, n_threads_batch=args.threads,
                          n_ctx=512, n_batch=512, verbose=False)
    ids = []
    while len(ids) < args.prompt_tokens:
        ids += llm.tokenize(TEXT.encode(), add_bos=False, special=True)
    ids = ids[: args.prompt_tokens]

    def llama_round():
        llm.reset()
        t = time.perf_counter()
        llm.eval(ids)
        prefill = time.perf_counter() - t
        t = time.perf_counter()
        for _ in range(args.decode):
            logits = llm.scores[llm.n_tokens - 1]
            llm.eval([int(logits.argmax())])
        decode = time.perf_counter() - t
        return len(ids) / prefill, args.decode / decode

    def ours_round():
        out = subprocess.run([ours_bin, "--backend", args.backend, "--prompt-tokens", str(args.prompt_tokens),
                              "--decode", str(args.decode), "--rounds", "1"],
                             check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        return r["prefill_tps"], r["decode_tps"]

    llama_round()  # warm-up
    rows = []
    for i in range(args.rounds):
        ours = ours_round()
        ref = llama_round()
        rows.append((ours, ref))
        print(f"round {i}: ours prefill {ours[0]:7.2f} tok/s decode {ours[1]:6.2f} tok/s | "
              f"llama.cpp prefill {ref[0]:7.2f} decode {ref[1]:6.2f} | "
              f"ratio prefill {ours[0] / ref[0]:.2f} decode {ours[1] / ref[1]:.2f}", flush=True)
    pr = statistics.median(o[0] / r[0] for o, r in rows)
    dr = statistics.median(o[1] / r[1] for o, r in rows)
    print(json.dumps({
        "backend": args.backend, "threads": args.threads, "prompt_tokens": len(ids), "decode_tokens": args.decode,
        "ours_prefill_tps": statistics.median(o[0] for o, _ in rows),
        "ours_decode_tps": statistics.median(o[1] for o, _ in rows),
        "llamacpp_prefill_tps": statistics.median(r[0] for _, r in rows),
        "llamacpp_decode_tps": statistics.median(r[1] for _, r in rows),
        "median_ratio_prefill": round(pr, 3), "median_ratio_decode": round(dr, 3),
    }))


if __name__ == "__main__":
    main()
