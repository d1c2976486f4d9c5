cd /work/main
out=target/long-smoke; mkdir -p $out
p="$(cat /tmp/long-prompt.py)"
target/gpu-bins-s49/espalier generate --backend ndarray --weights burn-f32 --prompt "$p" --max-tokens 8 --json > $out/ndarray-f32.json 2>$out/ndarray-f32.log
for rows in 256 0; do
  WGPU_BACKEND=vulkan ESPALIER_GPU_PROLOGUE=1 ESPALIER_GPU_ATTENTION_ROWS=$rows target/gpu-bins-s49/espalier generate --backend wgpu --prompt "$p" --max-tokens 8 --json > $out/wgpu-$rows.json 2>$out/wgpu-$rows.log
done
python3 - $out <<'PY'
import json,sys
out=sys.argv[1]
def load(n):
    return json.loads(open(f"{out}/{n}.json").read().strip().splitlines()[-1])
ref=load("ndarray-f32")
print("ndarray burn-f32", ref["prefill_tokens"], ref["ids"])
for rows in ("256","0"):
    r=load(f"wgpu-{rows}")
    print(f"wgpu rows {rows}", r["prefill_tokens"], r["ids"], "same ids:", r["ids"]==ref["ids"], "decode_tps", round(r["decode_tps"],3))
PY
