// espalier-model's kernels in wasm under node: node run.mjs [ROUNDS] [WASM]
// 1. the self-check (simd128 vs portable vs exact sums; exits 1 on any failure or when
//    the build has no simd128 kernels), 2. one decode token's matrix-vector products,
//    simd128 and portable alternating, ROUNDS each, 3. a prompt's products (the prefill
//    tile against one dot product per (row, token)). Prints three JSON lines.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const here = dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.argv[2] ?? 7);
const wasm = process.argv[3] ?? join(here, '../../target/wasm-kernels/wasm32-unknown-unknown/release/espalier_model_wasm_kernels.wasm');
const { instance } = await WebAssembly.instantiate(readFileSync(wasm), {});
const w = instance.exports;
const check = { simd128: w.has_simd() === 1, cases: w.check_cases(), failures: w.check_failures(), max_error: w.check_max_error() };
console.log(JSON.stringify({ kernel_check: check }));
if (!check.simd128 || check.failures > 0 || check.cases < 1000) { console.error('kernel check FAILED'); process.exit(1); }
if (rounds === 0) process.exit(0);
w.setup();
// Wall time and on-CPU time of the process (getrusage: user + system) per call: on a
// loaded machine the wall time mostly measures waiting for a core.
// `int8`: the simd128 integer kernels against 8-bit activations (what decode runs).
const ms = { simd128: [], portable: [], int8: [] };
const cpu = { simd128: [], portable: [], int8: [] };
const sums = {};
const all = [['simd128', 0], ['portable', 1], ['int8', 2]];
for (let r = 0; r < rounds; r++) {
  const order = [0, 1, 2].map((k) => all[(r + k) % 3]);
  for (const [name, p] of order) {
    const c = process.cpuUsage();
    const t = performance.now();
    sums[name] = p === 2 ? w.token_int8() : w.token(p);
    ms[name].push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu[name].push((d.user + d.system) / 1000);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const agree = Math.abs(sums.simd128 - sums.portable) <= 1e-5 * Math.abs(sums.portable);
console.log(JSON.stringify({ bench: 'decode-token matvecs (30 Q4_1 layers + Q8_0 output)', runtime: `node ${process.version} wasm32`,
  rounds, simd128_ms: ms.simd128.map((x) => +x.toFixed(1)), portable_ms: ms.portable.map((x) => +x.toFixed(1)),
  simd128_median_ms: +median(ms.simd128).toFixed(1), portable_median_ms: +median(ms.portable).toFixed(1),
  speedup: +(median(ms.portable) / median(ms.simd128)).toFixed(2),
  simd128_cpu_ms: cpu.simd128.map((x) => +x.toFixed(1)), portable_cpu_ms: cpu.portable.map((x) => +x.toFixed(1)),
  simd128_cpu_median_ms: +median(cpu.simd128).toFixed(1), portable_cpu_median_ms: +median(cpu.portable).toFixed(1),
  speedup_cpu: +(median(cpu.portable) / median(cpu.simd128)).toFixed(2), checksums_agree: agree,
  int8_cpu_median_ms: +median(cpu.int8).toFixed(1), int8_over_simd128_cpu: +(median(cpu.simd128) / median(cpu.int8)).toFixed(2),
  load_avg: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') }));
if (!agree) { console.error('checksums differ'); process.exit(1); }
// 3. A prompt's products (30 Q4_1 layers, 8-bit activations): the simd128 prefill tile
//    against one dot product per (row, token), alternating; CPU ms per prompt token.
const promptTokens = Number(process.env.ESPALIER_WASM_PREFILL_TOKENS ?? 60);
w.prefill_setup(promptTokens);
const pre = { tiled: [], per_pair: [] };
const preSums = {};
for (let r = 0; r < rounds; r++) {
  for (const [name, tiled] of r % 2 ? [['per_pair', 0], ['tiled', 1]] : [['tiled', 1], ['per_pair', 0]]) {
    const c = process.cpuUsage();
    preSums[name] = w.prefill(tiled);
    const d = process.cpuUsage(c);
    pre[name].push((d.user + d.system) / 1000 / promptTokens);
  }
}
const preAgree = Math.abs(preSums.tiled - preSums.per_pair) <= 1e-4 * (1 + Math.abs(preSums.per_pair));
console.log(JSON.stringify({ bench: `prefill matmuls (30 Q4_1 layers, ${promptTokens} tokens, 8-bit activations)`, rounds,
  tiled_cpu_ms_per_token: pre.tiled.map((x) => +x.toFixed(2)), per_pair_cpu_ms_per_token: pre.per_pair.map((x) => +x.toFixed(2)),
  tiled_median: +median(pre.tiled).toFixed(2), per_pair_median: +median(pre.per_pair).toFixed(2),
  speedup_cpu: +(median(pre.per_pair) / median(pre.tiled)).toFixed(2), checksums: preSums, checksums_agree: preAgree,
  load_avg: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') }));
if (!preAgree) { console.error('prefill checksums differ'); process.exit(1); }
