// The first steps of a fresh instance, where V8's first-call compilation falls:
//   node first-steps.mjs INPUT WASM [--cold] [STEPS]
// Prints, for setup and each of the first STEPS (default 10) exact masks, the wall
// time and the process's on-CPU time (user + system: it counts V8's background
// compilation threads too) as `wall/cpu` in microseconds (setup in milliseconds).
// `--cold` skips the harness's warm-up masks in setup. results/masks/README.md runs it
// ten times per build, interleaved, and reports medians.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const argv = process.argv.slice(2);
const cold = argv.includes('--cold');
const [input, wasmPath, n = '10'] = argv.filter((a) => a !== '--cold');
if (!input || !wasmPath) {
  console.error('usage: first-steps.mjs INPUT WASM [--cold] [STEPS]');
  process.exit(2);
}
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const w = instance.exports;
const data = readFileSync(input);
w.compile_grammar();
const ptr = w.alloc(data.length);
new Uint8Array(w.memory.buffer, ptr, data.length).set(data);
const cpuUs = (d) => d.user + d.system;
let c = process.cpuUsage();
let t = performance.now();
// Flags: 2 = cold (no warm-up masks in setup).
if (w.setup(ptr, data.length, cold ? 2 : 0) === 0) throw new Error('setup failed (bad input?)');
const setup = `${(performance.now() - t).toFixed(0)}/${(cpuUs(process.cpuUsage(c)) / 1000).toFixed(0)}`;
const steps = [];
for (let i = 0; i < Number(n); i++) {
  c = process.cpuUsage();
  t = performance.now();
  w.mask_step();
  const wall = (performance.now() - t) * 1000;
  steps.push(`${wall.toFixed(0)}/${cpuUs(process.cpuUsage(c))}`);
  w.commit_step();
}
console.log(`${cold ? 'cold' : 'warm'} setup ms ${setup} steps wall/cpu us: ${steps.join(' ')}`);
