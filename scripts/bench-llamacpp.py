#!/usr/bin/env python3
"""Speed of our model (crates/model, example `bench`) against llama.cpp, measured
interleaved in one run on this machine: same prompt, same thread count, rounds
alternating ours / llama.cpp so both see the same load.

The machine is shared, so absolute figures are noisy; the ratios of rounds run back to
back are the figure to report.

Set-up: llama-cpp-python in some Python. The prebuilt wheel in ../shared/tools needs
AVX-512 (it dies with SIGILL in ggml_cpu_init on an AVX2-only CPU);
`scripts/bench-llamacpp.sh` makes a venv (/tmp/llama-venv) with that wheel and a
natively built libggml-cpu.

Usage:
    python3 scripts/bench-llamacpp.py [--python /tmp/llama-venv/bin/python] [--rounds 5]
        [--prompt-tokens 64] [--decode 32] [--threads 2] [--backend ndarray|flex]
        [--weights q8_0|f16|f32|burn-f32|gguf] [--activations int8|f32] [--features flex] [--model FILE]
It builds the example once (`cargo build --release -p espalier-model --example bench`;
set CARGO_TARGET_DIR to reuse a target dir), prints the load average, one line per
round (ours then llama.cpp, same prompt ids, same token counts, same thread count) and
a JSON summary with the medians and median ratios. llama.cpp runs in a child process,
so a crash there is reported and our figures are still printed.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "static/models/SmolLM2-135M-Instruct.Q4_1.gguf")
TOOLS = os.path.join(ROOT, "..", "shared", "tools")
# Same text as crates/model/examples/bench.rs.
TEXT = "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n\n\nclass Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n        self.items.append(item)\n\n    def pop(self):\n        return self.items.pop()\n"


def llama_worker(args):
    """One llama.cpp round in this (child) process; prints a JSON line."""
    sys.path.insert(0, TOOLS)
    import llamacpp_noamx  # noqa: F401  (turns off the AMX buffers that crash on batched prompts)
    import llama_cpp

    llm = llama_cpp.Llama(model_path=args.model, n_threads=args.threads, n_threads_batch=args.threads,
                          n_ctx=512, n_batch=512, verbose=False)
    ids = []
    while len(ids) < args.prompt_tokens:
        ids += llm.tokenize(TEXT.encode(), add_bos=False, special=True)
    ids = ids[: args.prompt_tokens]
    llm.eval(ids[:8])  # warm-up
    llm.reset()
    t, c = time.perf_counter(), time.process_time()
    llm.eval(ids)
    prefill, prefill_cpu = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    for _ in range(args.decode):
        llm.eval([int(llm.scores[llm.n_tokens - 1].argmax())])
    decode, decode_cpu = time.perf_counter() - t, time.process_time() - c
    print(json.dumps({"prefill_tps": len(ids) / prefill, "decode_tps": args.decode / decode,
                      "prefill_cpu_tps": len(ids) / prefill_cpu, "decode_cpu_tps": args.decode / decode_cpu}))


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        why = f"exit {p.returncode}"
        if p.returncode < 0:
            why = f"killed by {signal.Signals(-p.returncode).name}"
        return None, why + (": " + p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    return (r["prefill_tps"], r["decode_tps"], r), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--prompt-tokens", type=int, default=64)
    ap.add_argument("--decode", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--backend", default="ndarray")
    ap.add_argument("--weights", default=None, help="our weight format (default: the backend's)")
    ap.add_argument("--activations", default=None, help="how our CPU kernels take decode activations (int8, f32)")
    ap.add_argument("--model", default=MODEL, help="GGUF file both engines run (default: SmolLM2)")
    ap.add_argument("--features", default=None, help="cargo features of espalier-model (e.g. flex)")
    ap.add_argument("--python", default=os.environ.get("ESPALIER_LLAMA_PYTHON", sys.executable),
                    help="Python with llama_cpp installed (see scripts/bench-llamacpp.sh)")
    ap.add_argument("--llama-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    # Spinning OpenMP threads collapse throughput on a shared 2-core machine.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ["RAYON_NUM_THREADS"] = str(args.threads)
    if args.llama_worker:
        return llama_worker(args)

    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    build = ["cargo", "build", "--release", "-q", "-p", "espalier-model", "--example", "bench"]
    if args.features:
        build += ["--features", args.features]
    subprocess.run(build, cwd=ROOT, check=True)
    ours_cmd = [os.path.join(target, "release", "examples", "bench"), "--backend", args.backend,
                "--prompt-tokens", str(args.prompt_tokens), "--decode", str(args.decode), "--rounds", "1",
                "--model", args.model]
    if args.weights:
        ours_cmd += ["--weights", args.weights]
    if args.activations:
        ours_cmd += ["--activations", args.activations]
    llama_cmd = [args.python, os.path.abspath(__file__), "--llama-worker", "--threads", str(args.threads),
                 "--prompt-tokens", str(args.prompt_tokens), "--decode", str(args.decode), "--model", args.model]
    load_start = loadavg()
    print(f"load average at start: {load_start}", flush=True)

    rows = []
    llama_error = None
    for i in range(args.rounds):
        ours, err = run_json(ours_cmd)
        if ours is None:
            sys.exit(f"our bench failed: {err}")
        ref = None
        if llama_error is None:
            ref, llama_error = run_json(llama_cmd)
        line = (f"round {i}: ours ({ours[2].get('backend')}, {ours[2].get('weights')}, {ours[2].get('activations')}) "
                f"prefill {ours[0]:7.2f} tok/s decode {ours[1]:6.2f} tok/s")
        if ref:
            line += (f" | llama.cpp prefill {ref[0]:7.2f} decode {ref[1]:6.2f}"
                     f" | ratio prefill {ours[0] / ref[0]:.2f} decode {ours[1] / ref[1]:.2f}")
            if "prefill_cpu_tps" in ours[2] and "prefill_cpu_tps" in ref[2]:
                line += (f" | on-CPU ratio prefill {ours[2]['prefill_cpu_tps'] / ref[2]['prefill_cpu_tps']:.2f}"
                         f" decode {ours[2]['decode_cpu_tps'] / ref[2]['decode_cpu_tps']:.2f}")
        else:
            line += f" | llama.cpp unavailable ({llama_error})"
        print(line, flush=True)
        rows.append((ours, ref))

    summary = {
        "backend": args.backend, "weights": rows[0][0][2].get("weights"),
        "activations": rows[0][0][2].get("activations"), "model": os.path.basename(args.model), "threads": args.threads,
        "prompt_tokens": args.prompt_tokens, "decode_tokens": args.decode,
        "loadavg_start": load_start, "loadavg_end": loadavg(),
        "ours_prefill_tps": statistics.median(o[0] for o, _ in rows),
        "ours_decode_tps": statistics.median(o[1] for o, _ in rows),
    }
    paired = [(o, r) for o, r in rows if r]
    if paired:
        summary.update({
            "llamacpp_prefill_tps": statistics.median(r[0] for _, r in paired),
            "llamacpp_decode_tps": statistics.median(r[1] for _, r in paired),
            "median_ratio_prefill": round(statistics.median(o[0] / r[0] for o, r in paired), 3),
            "median_ratio_decode": round(statistics.median(o[1] / r[1] for o, r in paired), 3),
        })
        # On-CPU rates (process CPU time, all threads): what a loaded machine does not
        # distort; with --threads 1 they compare the work itself.
        cpu = [(o[2], r[2]) for o, r in paired if "prefill_cpu_tps" in o[2] and "prefill_cpu_tps" in r[2]]
        if cpu:
            summary.update({
                "ours_prefill_cpu_tps": round(statistics.median(o["prefill_cpu_tps"] for o, _ in cpu), 2),
                "llamacpp_prefill_cpu_tps": round(statistics.median(r["prefill_cpu_tps"] for _, r in cpu), 2),
                "median_ratio_prefill_cpu": round(statistics.median(o["prefill_cpu_tps"] / r["prefill_cpu_tps"] for o, r in cpu), 3),
                "median_ratio_decode_cpu": round(statistics.median(o["decode_cpu_tps"] / r["decode_cpu_tps"] for o, r in cpu), 3),
            })
    else:
        summary["llamacpp_error"] = llama_error
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
