// Times the wasm build of espalier-constraint: node run.mjs INPUT exact|check [WASM]
// INPUT comes from `espalier bench mask --export INPUT ...`. Prints one JSON line with
// the same keys as `espalier bench mask` (tokens, p50_us, p99_us, max_us, setup_ms,
// violations) plus grammar_ms.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const [input, strategy = 'exact', wasmArg] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const wasmPath = wasmArg ?? join(here, 'target/wasm32-unknown-unknown/release/espalier_constraint_wasm_bench.wasm');
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const w = instance.exports;
const data = readFileSync(input);
let t = performance.now();
w.compile_grammar();
const grammarMs = performance.now() - t;
const ptr = w.alloc(data.length);
new Uint8Array(w.memory.buffer, ptr, data.length).set(data);
t = performance.now();
const steps = w.setup(ptr, data.length, strategy === 'check' ? 1 : 0);
const setupMs = performance.now() - t;
if (steps === 0) throw new Error('setup failed (bad input?)');
const times = new Float64Array(steps);
// On-CPU time of the process per step (getrusage: user + system, microseconds), so
// that waiting for a core on a loaded machine does not count.
const cpu = new Float64Array(steps);
for (let i = 0; i < steps; i++) {
  const c = process.cpuUsage();
  const a = performance.now();
  w.mask_step();
  times[i] = (performance.now() - a) * 1000;
  const d = process.cpuUsage(c);
  cpu[i] = d.user + d.system;
  w.commit_step();
}
const cpuSorted = Array.from(cpu).sort((a, b) => a - b);
const sorted = Array.from(times).sort((a, b) => a - b);
const pct = (p) => sorted[Math.min(sorted.length - 1, Math.round((p / 100) * (sorted.length - 1)))];
const r2 = (x) => Math.round(x * 100) / 100;
console.log(JSON.stringify({
  bench: 'mask', runtime: `node ${process.version} wasm32`, strategy, tokens: steps,
  p50_us: r2(pct(50)), p99_us: r2(pct(99)), max_us: r2(sorted[sorted.length - 1]),
  mean_us: r2(sorted.reduce((a, b) => a + b, 0) / steps),
  setup_ms: r2(setupMs), grammar_ms: r2(grammarMs), violations: w.violations(),
  cpu_p50_us: cpuSorted[Math.round(0.5 * (steps - 1))], cpu_p99_us: cpuSorted[Math.round(0.99 * (steps - 1))],
  cpu_max_us: cpuSorted[steps - 1],
  load_avg_1m: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
}));
