# Same-machine anchor for decode speed (issue 20): Hugging Face transformers (PyTorch,
# eager) on the GPU with SmolLM2-135M-Instruct dequantized from the same GGUF; greedy, 64
# new tokens after the chat-formatted prompt `espalier generate` uses. One JSON line per
# dtype. Run on the device as
#   python3 hf_anchor.py DIR SmolLM2-135M-Instruct.Q4_1.gguf OUT/generate-ndarray.json
# with the `gguf` wheel on PYTHONPATH (the image has transformers and torch, not gguf).
import json, sys, time
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

d, f, ours = sys.argv[1], sys.argv[2], sys.argv[3]
tok = AutoTokenizer.from_pretrained(d, gguf_file=f)
prompt = "Write a Python function that returns the n-th Fibonacci number."
ids = tok.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True, return_tensors="pt")
if not torch.is_tensor(ids):
    ids = ids["input_ids"]
ours_ids = json.load(open(ours))["ids"]
for dtype in (torch.float32, torch.bfloat16):
    model = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, dtype=dtype).cuda().eval()
    x = ids.cuda()
    with torch.no_grad():
        model.generate(x, max_new_tokens=8, do_sample=False)  # warm-up
        torch.cuda.synchronize(); t0 = time.perf_counter()
        model(x); torch.cuda.synchronize(); t_pre = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = model.generate(x, max_new_tokens=64, min_new_tokens=64, do_sample=False)
        torch.cuda.synchronize(); t_all = time.perf_counter() - t0
    new = out[0, x.shape[1]:].tolist()
    same = next((i for i, (a, b) in enumerate(zip(new, ours_ids)) if a != b), None)
    print(json.dumps({"anchor": "transformers", "torch": torch.__version__, "dtype": str(dtype), "prompt_tokens": x.shape[1],
                      "prefill_s": t_pre, "generate_64_s": t_all, "decode_tps_incl_prefill": 64 / t_all,
                      "decode_tps": 64 / max(t_all - t_pre, 1e-9), "first_diff_vs_espalier_ndarray": same, "ids": new[:16]}), flush=True)
