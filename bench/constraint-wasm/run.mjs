// Times the wasm build of espalier-constraint:
//   node run.mjs INPUT exact|check [WASM] [--passes N] [--dump FILE] [--cold] [--repeat K]
// INPUT comes from `espalier bench mask --export INPUT ...`. Prints one JSON line with
// the same keys as `espalier bench mask` (tokens, p50_us, p99_us, max_us, setup_ms,
// violations) plus grammar_ms, all for the first pass over the steps (what the
// native twin `--bin native` reports too), and, to explain the worst steps:
// - `passes`: with `--passes N` (N > 1), every further pass over the same steps in
//   the same instance (warm code, heap already grown), as p50/p99/max;
// - `grow_steps`: steps during which the wasm memory grew (memory.grow), with the
//   slowest of them;
// - `worst`: the 5 slowest steps of the first pass (step index, wall and CPU time,
//   whether memory grew, and the same step's wall time in the last pass).
// `--dump FILE` writes every step's wall time of every pass, one line per step
// (tab-separated), to compare step by step with the native harness's `--dump`.
// `--repeat K`: every step's mask is computed once untimed (violations, digest), then
// K times more, timed together (`repeat_mask`), each by a copy of the constraint taken
// before the step (`prepare_repeat`: what the constraint kept from the step before,
// its mask memo, is reused as in a single pass); its time is that divided by K (a
// warm, repeated step: the same measure as browser.mjs's `--repeat`).
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { takeFlags } from './args.mjs';

const { passes, dump, cold, repeat, args } = takeFlags(process.argv.slice(2));
const [input, strategy = 'exact', wasmArg] = args;
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
// Flags: 1 = check, 2 = cold (no warm-up mask in setup).
const steps = w.setup(ptr, data.length, (strategy === 'check' ? 1 : 0) | (cold ? 2 : 0));
const setupMs = performance.now() - t;
if (steps === 0) throw new Error('setup failed (bad input?)');

const r2 = (x) => Math.round(x * 100) / 100;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.round((p / 100) * (sorted.length - 1)))];
const sortedOf = (a) => Array.from(a).sort((x, y) => x - y);

// One pass over every step: wall time, on-CPU time of the process (getrusage: user +
// system, microseconds, so that waiting for a core on a loaded machine does not
// count; it includes V8's background threads, e.g. optimizing compilation), and the
// bytes the wasm memory grew by during the step.
function pass() {
  const times = new Float64Array(steps);
  const cpu = new Float64Array(steps);
  const grew = new Float64Array(steps);
  const v0 = w.violations();
  for (let i = 0; i < steps; i++) {
    const m0 = w.memory.buffer.byteLength;
    if (repeat > 0) {
      // (absent from builds before the mask memo, which repeat on the constraint itself)
      if (w.prepare_repeat) w.prepare_repeat(repeat);
      w.mask_step();
    }
    const c = process.cpuUsage();
    const a = performance.now();
    if (repeat > 0) w.repeat_mask(repeat);
    else w.mask_step();
    times[i] = ((performance.now() - a) * 1000) / Math.max(1, repeat);
    const d = process.cpuUsage(c);
    cpu[i] = (d.user + d.system) / Math.max(1, repeat);
    grew[i] = w.memory.buffer.byteLength - m0;
    w.commit_step();
  }
  return { times, cpu, grew, violations: w.violations() - v0 };
}

const runs = [pass()];
for (let k = 1; k < passes; k++) {
  if (w.restart() !== steps) throw new Error('restart failed');
  runs.push(pass());
}
const first = runs[0];
const last = runs[runs.length - 1];
const sorted = sortedOf(first.times);
const cpuSorted = sortedOf(first.cpu);
const grows = [];
for (let i = 0; i < steps; i++) if (first.grew[i] > 0) grows.push(i);
const order = Array.from(first.times.keys()).sort((a, b) => first.times[b] - first.times[a]);
if (dump) {
  const lines = [];
  for (let i = 0; i < steps; i++) lines.push(runs.map((r) => r2(r.times[i])).join('\t'));
  writeFileSync(dump, lines.join('\n') + '\n');
}
console.log(JSON.stringify({
  bench: 'mask', runtime: `node ${process.version} wasm32`, strategy, tokens: steps, repeat,
  p50_us: r2(pct(sorted, 50)), p99_us: r2(pct(sorted, 99)), max_us: r2(sorted[sorted.length - 1]),
  mean_us: r2(sorted.reduce((a, b) => a + b, 0) / steps),
  setup_ms: r2(setupMs), grammar_ms: r2(grammarMs), violations: first.violations,
  cpu_p50_us: pct(cpuSorted, 50), cpu_p99_us: pct(cpuSorted, 99), cpu_max_us: cpuSorted[steps - 1],
  passes: runs.slice(1).map((r) => {
    const s = sortedOf(r.times);
    const c = sortedOf(r.cpu);
    return { p50_us: r2(pct(s, 50)), p99_us: r2(pct(s, 99)), max_us: r2(s[steps - 1]), cpu_p50_us: pct(c, 50), cpu_max_us: c[steps - 1], violations: r.violations };
  }),
  grow_steps: grows.length,
  grow_max_us: grows.length ? r2(Math.max(...grows.map((i) => first.times[i]))) : 0,
  worst: order.slice(0, 5).map((i) => ({ step: i, us: r2(first.times[i]), cpu_us: first.cpu[i], grew: first.grew[i], last_pass_us: r2(last.times[i]) })),
  memory_mib: r2(w.memory.buffer.byteLength / 1048576),
  mask_digest: w.work(3).toString(16).padStart(16, '0'),
  reused_share: r2(Number(w.work(4)) / (steps * runs.length)),
  load_avg_1m: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
}));
