// The playground's choice of backend where WebGPU is offered (issue 33: "the GPU path
// is never slower than the CPU fallback"): with no `?backend=` the page times a few
// decode steps on WebGPU against a CPU copy of the model (web/src/backend_race.rs)
// and keeps the faster. Here WebGPU is Debian Chromium's SwiftShader (WebGPU on the
// CPU, ~10-20 s a token against well under 1 s on the WebAssembly CPU path), so the
// page must keep the CPU and say both speeds; a page that kept SwiftShader, or did not
// time both sides, fails.
//
// Usage: node web/tests/backend-race.mjs <url> <results-dir>
// Writes <results-dir>/backend-race.json (the page's account, the race's console line,
// seconds to ready). Exits 0 only when every check passed. Called by
// scripts/browser-test.sh.
import { chromium } from "playwright-core";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEnded } from "./page-load.mjs";

const [url, outDir] = process.argv.slice(2);
if (!url || !outDir) {
  console.error("usage: backend-race.mjs <url> <results-dir>");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const log = (...a) => console.log("[backend-race]", ...a);
const failures = [];
const check = (ok, what) => { if (!ok) { failures.push(what); log("FAIL:", what); } else log("ok:", what); };

const profile = mkdtempSync(join(tmpdir(), "espalier-race-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic", "--enable-unsafe-webgpu"],
});
const report = { url };
try {
  const page = await context.newPage();
  const race = [];
  page.on("console", (m) => { if (m.text().includes("backend race:")) race.push(m.text()); });
  const t0 = Date.now();
  await page.goto(url);
  await loadEnded(page, { timeout: 6 * 60 * 1000, polling: 250 });
  report.ready_s = (Date.now() - t0) / 1000;
  const attr = (name) => page.$eval("#app", (el, n) => el.getAttribute(n), name);
  report.load = await attr("data-load");
  report.backend = await attr("data-backend");
  report.detail = (await page.$eval("#loading", (el) => el.textContent)).trim();
  report.race = race;
  log(`ready in ${report.ready_s.toFixed(1)} s on ${report.backend}: ${report.detail}`);
  for (const line of race) log(line);
  check(report.load === "ready", `model loaded (${report.detail})`);
  check(report.backend === "cpu", `SwiftShader loses the race: the page keeps the CPU (page says ${report.backend})`);
  const m = /warm-up: WebGPU (\d+) ms a token, CPU (\d+) ms a token/.exec(report.detail);
  check(m !== null, "the page says both sides' speeds");
  if (m) {
    report.webgpu_ms = Number(m[1]);
    report.cpu_ms = Number(m[2]);
    check(report.webgpu_ms > report.cpu_ms, `the kept side is the faster (WebGPU ${m[1]} ms, CPU ${m[2]} ms a token)`);
  }
  check(race.length === 1, "the worker logged one race with each side's steps");
  await page.screenshot({ path: join(outDir, "backend-race.png"), fullPage: true });
} catch (e) {
  failures.push(`exception: ${e.message}`);
  log("exception:", e.stack);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
report.failures = failures;
writeFileSync(join(outDir, "backend-race.json"), JSON.stringify(report, null, 2) + "\n");
log(failures.length ? `FAILED: ${failures.join("; ")}` : "passed");
process.exit(failures.length ? 1 : 0);
