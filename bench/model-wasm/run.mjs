// Times the wasm build of espalier-model's CPU path under node, and runs the kernels'
// self-check in wasm:
//   node run.mjs [--check] [--model GGUF] [--rounds N] [--prompt-tokens N] [--decode N] NAME=DIR ...
// Each DIR is a `wasm-bindgen --target nodejs` output of espalier-model-wasm-bench (e.g.
// simd=... portable=...). Rounds alternate between the builds (same prompt ids, greedy).
// Prints one JSON line per round and build, then a last JSON line with the medians.
// --check: runs kernel_check in every build first and exits 1 on any failure.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args.splice(i, 2)[1];
  if (v === undefined) throw new Error(`${name} needs a value`);
  return v;
};
const flag = (name) => { const i = args.indexOf(name); if (i >= 0) args.splice(i, 1); return i >= 0; };
const check = flag('--check');
const model = opt('--model', 'static/models/SmolLM2-135M-Instruct.Q4_1.gguf');
const rounds = Number(opt('--rounds', '3'));
const promptTokens = Number(opt('--prompt-tokens', '64'));
const decode = Number(opt('--decode', '32'));
if (args.length === 0) throw new Error('give at least one NAME=DIR (wasm-bindgen --target nodejs output)');
const builds = args.map((a) => {
  const [name, dir] = a.includes('=') ? a.split('=') : ['wasm', a];
  return { name, w: require(resolve(join(dir, 'espalier_model_wasm_bench.js'))) };
});
const cpuS = (u) => (u.user + u.system) / 1e6;
const loadAvg = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

let failed = false;
if (check) {
  for (const { name, w } of builds) {
    const c = JSON.parse(w.check());
    console.log(JSON.stringify({ build: name, kernel_check: c }));
    if (c.failures.length > 0 || c.cases < 1000) failed = true;
  }
  if (failed) { console.error('kernel check FAILED'); process.exit(1); }
}
if (rounds === 0) process.exit(0);

const bytes = readFileSync(model);
for (const b of builds) {
  const t = performance.now();
  b.info = b.w.load(new Uint8Array(bytes));
  b.loadS = (performance.now() - t) / 1000;
  b.prefill = []; b.decode = []; b.prefillCpu = []; b.decodeCpu = []; b.tokens = null;
}
const ids = builds[0].w.prompt(promptTokens);
for (let r = 0; r < rounds; r++) {
  // Alternate the order each round so neither build always runs first.
  const order = r % 2 === 0 ? builds : [...builds].reverse();
  for (const b of order) {
    // Wall and on-CPU time (the process's user + system time: on a loaded machine the
    // wall clock mostly measures waiting for a core).
    let t = performance.now();
    let c = process.cpuUsage();
    let next = b.w.prefill(ids);
    const prefillS = (performance.now() - t) / 1000;
    const prefillCpuS = cpuS(process.cpuUsage(c));
    const out = [next];
    t = performance.now();
    c = process.cpuUsage();
    for (let i = 0; i < decode; i++) { next = b.w.step(next); out.push(next); }
    const decodeS = (performance.now() - t) / 1000;
    const decodeCpuS = cpuS(process.cpuUsage(c));
    b.prefill.push(ids.length / prefillS); b.decode.push(decode / decodeS);
    b.prefillCpu.push(ids.length / prefillCpuS); b.decodeCpu.push(decode / decodeCpuS);
    if (b.tokens === null) b.tokens = out.join(',');
    else if (b.tokens !== out.join(',')) failed = true;
    console.log(JSON.stringify({ build: b.name, round: r, info: b.info, prefill_tokens: ids.length,
      prefill_tps: +(ids.length / prefillS).toFixed(2), decode_tokens: decode,
      decode_tps: +(decode / decodeS).toFixed(2), prefill_cpu_tps: +(ids.length / prefillCpuS).toFixed(2),
      decode_cpu_tps: +(decode / decodeCpuS).toFixed(2), load_avg_1m: loadAvg() }));
  }
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return +s[Math.floor(s.length / 2)].toFixed(2); };
const summary = { runtime: `node ${process.version} wasm32`, threads: 1, rounds, prompt_tokens: ids.length, decode_tokens: decode,
  same_tokens: builds.every((b) => b.tokens === builds[0].tokens), load_avg_1m: loadAvg() };
for (const b of builds) {
  summary[`${b.name}_info`] = b.info;
  summary[`${b.name}_load_s`] = +b.loadS.toFixed(2);
  summary[`${b.name}_decode_tps`] = median(b.decode);
  summary[`${b.name}_prefill_tps`] = median(b.prefill);
  summary[`${b.name}_decode_cpu_tps`] = median(b.decodeCpu);
  summary[`${b.name}_prefill_cpu_tps`] = median(b.prefillCpu);
}
if (builds.length === 2) {
  const [a, b] = builds;
  summary[`ratio_decode_${a.name}_${b.name}`] = +(median(a.decode) / median(b.decode)).toFixed(3);
  summary[`ratio_prefill_${a.name}_${b.name}`] = +(median(a.prefill) / median(b.prefill)).toFixed(3);
  summary[`ratio_decode_cpu_${a.name}_${b.name}`] = +(median(a.decodeCpu) / median(b.decodeCpu)).toFixed(3);
  summary[`ratio_prefill_cpu_${a.name}_${b.name}`] = +(median(a.prefillCpu) / median(b.prefillCpu)).toFixed(3);
}
console.log(JSON.stringify(summary));
if (failed) { console.error('greedy tokens differ between rounds'); process.exit(1); }
