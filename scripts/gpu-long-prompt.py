"""The long prompt of the GPU checks (gpu-bench.sh, check-cuda-kernels.sh): 40 small
functions and the start of a 41st, 1,805 tokens in SmolLM2's chat template, so a decode
step's attention runs over a cache long enough to split (gpu_attention_split.rs)."""
for i in range(40):
    print(f"def f{i}(xs, k={i}):\n    total = 0\n    for x in xs:\n        if x % {i + 2} == 0:\n"
          f"            total += x * k\n    return total\n")
print("def main():")
