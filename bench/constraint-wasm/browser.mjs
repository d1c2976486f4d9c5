// The wasm mask benchmark in Debian's headless Chromium: the same harness and loop as
// run.mjs, run in a page, so browser figures come from identical work.
//   node bench/constraint-wasm/browser.mjs INPUT [WASM] [--passes N] [--dump FILE] [--cold] [--repeat K]
// Prints one JSON line like run.mjs (no CPU times: a page has no process clock).
//
// Timer resolution: Chromium coarsens performance.now() to 100 us in ordinary pages
// and to 5 us in cross-origin-isolated ones, so the page is served (from memory,
// through request interception) with COOP/COEP headers; the figures are then 5 us
// steps with Chromium's jitter, fine for percentiles over 17,961 steps but not for
// one step. `timer_us` in the output reports the resolution seen. `--repeat K` (as
// in run.mjs) times each step as K masks of it, so a step's figure has 5/K us steps.
import { chromium } from 'playwright-core';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { takeFlags } from './args.mjs';

const { passes, dump, cold, repeat, args } = takeFlags(process.argv.slice(2));
const [input, wasmArg] = args;
if (!input) {
  console.error('usage: browser.mjs INPUT [WASM] [--passes N] [--dump FILE] [--cold] [--repeat K]');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const wasmPath = wasmArg ?? join(here, '../../target/wasm32-unknown-unknown/release/espalier_constraint_wasm_bench.wasm');
const files = { '/bench.wasm': readFileSync(wasmPath), '/input.bin': readFileSync(input) };

// The page: instantiates the harness and times every step, as run.mjs does.
const page = `<!doctype html><meta charset="utf-8"><title>mask bench</title><script type="module">
const passes = ${passes};
const repeat = ${repeat};
const get = async (p) => new Uint8Array(await (await fetch(p)).arrayBuffer());
const [wasm, data] = await Promise.all([get('/bench.wasm'), get('/input.bin')]);
const { instance } = await WebAssembly.instantiate(wasm, {});
const w = instance.exports;
w.compile_grammar();
const ptr = w.alloc(data.length);
new Uint8Array(w.memory.buffer, ptr, data.length).set(data);
let t = performance.now();
const steps = w.setup(ptr, data.length, ${cold ? 2 : 0});
const setupMs = performance.now() - t;
// The smallest nonzero step of performance.now() seen (the timer's resolution).
let res = Infinity;
for (let i = 0, a = performance.now(); i < 200000 && res === Infinity; i++) {
  const b = performance.now();
  if (b > a) res = b - a;
}
const runs = [];
for (let k = 0; k < passes; k++) {
  if (k > 0) w.restart();
  const times = new Float64Array(steps);
  const v0 = w.violations();
  for (let i = 0; i < steps; i++) {
    if (repeat > 0) {
      // (absent from builds before the mask memo, which repeat on the constraint itself)
      if (w.prepare_repeat) w.prepare_repeat(repeat);
      w.mask_step();
    }
    const a = performance.now();
    if (repeat > 0) w.repeat_mask(repeat);
    else w.mask_step();
    times[i] = ((performance.now() - a) * 1000) / Math.max(1, repeat);
    w.commit_step();
  }
  runs.push({ times: Array.from(times), violations: w.violations() - v0 });
}
window.result = { steps, setupMs, runs, timer_us: res * 1000, isolated: crossOriginIsolated, ua: navigator.userAgent, digest: w.work(3).toString(16).padStart(16, '0') };
</script>`;

const profile = mkdtempSync(join(tmpdir(), 'espalier-maskbench-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
let out;
try {
  const tab = context.pages()[0] || (await context.newPage());
  tab.on('pageerror', (e) => console.error('[page error]', e.message));
  await tab.route('http://localhost:9/**', (route) => {
    const path = new URL(route.request().url()).pathname;
    const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
    if (path === '/') return route.fulfill({ status: 200, contentType: 'text/html', headers, body: page });
    const body = files[path];
    if (!body) return route.fulfill({ status: 404, body: '' });
    const type = path.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
    return route.fulfill({ status: 200, contentType: type, headers, body });
  });
  await tab.goto('http://localhost:9/');
  out = await tab.waitForFunction(() => window.result, null, { timeout: 600_000, polling: 1000 }).then((h) => h.jsonValue());
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}

const r2 = (x) => Math.round(x * 100) / 100;
const pct = (s, p) => s[Math.min(s.length - 1, Math.round((p / 100) * (s.length - 1)))];
const stats = (times) => {
  const s = [...times].sort((a, b) => a - b);
  return { p50_us: r2(pct(s, 50)), p99_us: r2(pct(s, 99)), max_us: r2(s[s.length - 1]) };
};
const first = out.runs[0];
if (dump) {
  const lines = [];
  for (let i = 0; i < out.steps; i++) lines.push(out.runs.map((r) => r2(r.times[i])).join('\t'));
  writeFileSync(dump, lines.join('\n') + '\n');
}
console.log(JSON.stringify({
  bench: 'mask', runtime: `chromium ${(out.ua.match(/Chrome\/([\d.]+)/) || [])[1]} wasm32`, strategy: 'exact', tokens: out.steps, repeat,
  ...stats(first.times), mean_us: r2(first.times.reduce((a, b) => a + b, 0) / out.steps),
  setup_ms: r2(out.setupMs), violations: first.violations,
  passes: out.runs.slice(1).map((r) => ({ ...stats(r.times), violations: r.violations })),
  timer_us: r2(out.timer_us), cross_origin_isolated: out.isolated, mask_digest: out.digest,
  load_avg_1m: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
}));
