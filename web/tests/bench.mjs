// Drives the benchmark page (web/bench/) in Debian's headless Chromium: loads
// Espalier's CPU path and wllama on the same GGUF file, then alternates them on the
// same prompt (as text: see `prompt`), greedy, `tokens` tokens, one thread each, for
// `rounds` rounds;
// writes results/browser/bench.json and a screenshot, and prints the medians as the
// last line of JSON.
//
// Usage: node web/tests/bench.mjs <url of bench.html> <results-dir>
// Environment: ESPALIER_BENCH_ROUNDS (default 3), ESPALIER_BENCH_TOKENS (default 64).
import { chromium } from "playwright-core";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadavg, cpus } from "node:os";

const [url, outDir] = process.argv.slice(2);
if (!url || !outDir) {
  console.error("usage: bench.mjs <url of bench.html> <results-dir>");
  process.exit(2);
}
const rounds = Number(process.env.ESPALIER_BENCH_ROUNDS || "3");
const tokens = Number(process.env.ESPALIER_BENCH_TOKENS || "64");
// A chat prompt like the playground's (60 tokens). Each engine tokenizes it (wllama
// 3.8.1 refuses a list of ids); the run fails unless wllama counts the same number of
// prompt tokens as Espalier's ids, and the greedy texts are printed side by side.
const prompt =
  "<|im_start|>system\nYou are a helpful assistant that writes short, correct Python code.<|im_end|>\n" +
  "<|im_start|>user\nWrite a Python function `merge(a, b)` that merges two sorted lists into one sorted list, " +
  "without using sort(), and explain nothing.<|im_end|>\n<|im_start|>assistant\n```python\n";
mkdirSync(outDir, { recursive: true });
const log = (...a) => console.error("[bench]", ...a);

const profile = mkdtempSync(join(tmpdir(), "espalier-bench-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  viewport: { width: 1200, height: 900 },
});
const page = context.pages()[0] || (await context.newPage());
page.on("console", (m) => { if (m.type() === "error") log("console", m.text().slice(0, 300)); });
page.on("pageerror", (e) => log("page error:", e.message));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
let status = 0;
const report = { url, rounds, tokens, prompt, cpu: cpus()[0]?.model, cpus: cpus().length, loadavg_start: loadavg(), runs: [] };
try {
  await page.goto(url);
  await page.waitForFunction(() => window.benchReady === true, null, { timeout: 60_000 });
  report.loaded = await page.evaluate(() => window.bench.load());
  log("loaded:", JSON.stringify(report.loaded));
  let ids = null;
  for (let round = 1; round <= rounds; round++) {
    // Alternate which engine goes first, so neither always gets the quieter moment.
    const order = round % 2 ? ["espalier", "wllama"] : ["wllama", "espalier"];
    for (const engine of order) {
      // Round 1 starts with Espalier, whose ids the wllama runs are checked against.
      const r = engine === "espalier"
        ? await page.evaluate(([p, n, rd]) => window.bench.espalier(p, n, rd), [prompt, tokens, round])
        : await page.evaluate(([p, n, rd]) => window.bench.wllama(p, n, rd), [prompt, tokens, round]);
      if (engine === "espalier") {
        ids = r.prompt_ids;
        report.prompt_ids = ids;
        report.espalier_generated_ids = r.generated_ids;
      }
      report.runs.push({ round, engine, ...r, prompt_ids: undefined, generated_ids: undefined });
      log(`round ${round} ${engine}: prompt ${r.prompt_n} tokens in ${r.prefill_ms.toFixed(0)} ms, ` +
          `${r.predicted_n} tokens in ${r.decode_ms.toFixed(0)} ms`);
    }
  }
  await page.evaluate(() => window.bench.status("done"));
  await page.screenshot({ path: join(outDir, "bench.png"), fullPage: true });
} catch (e) {
  log("FAILED:", e.stack || e.message);
  report.error = String(e.message || e);
  status = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
report.loadavg_end = loadavg();
const of = (engine, f) => report.runs.filter((r) => r.engine === engine).map(f);
const decode = (r) => r.predicted_n / r.decode_ms * 1000;
const prefill = (r) => r.prompt_n / r.prefill_ms * 1000;
const summary = {};
if (!report.error) {
  const wl = report.runs.filter((r) => r.engine === "wllama");
  const same = wl.every((r) => r.prompt_n === report.prompt_ids.length && r.predicted_n === tokens);
  if (!same) { report.error = `wllama did not run the same work: ${JSON.stringify(wl.map((r) => [r.prompt_n, r.predicted_n]))}`; status = 1; }
  summary.espalier_decode_tps = +median(of("espalier", decode)).toFixed(3);
  summary.wllama_decode_tps = +median(of("wllama", decode)).toFixed(3);
  summary.ratio_decode = +(summary.espalier_decode_tps / summary.wllama_decode_tps).toFixed(3);
  summary.espalier_prefill_tps = +median(of("espalier", prefill)).toFixed(3);
  summary.wllama_prefill_tps = +median(of("wllama", prefill)).toFixed(3);
  summary.ratio_prefill = +(summary.espalier_prefill_tps / summary.wllama_prefill_tps).toFixed(3);
  summary.threads = Math.max(...report.runs.map((r) => r.threads));
  const texts = [...new Set(report.runs.map((r) => `${r.engine}: ${JSON.stringify(r.text)}`))];
  log("greedy texts:\n  " + texts.join("\n  "));
}
report.summary = summary;
writeFileSync(join(outDir, "bench.json"), JSON.stringify(report, null, 2) + "\n");
if (report.error) log("error:", report.error);
console.log(JSON.stringify(summary));
process.exit(status);
