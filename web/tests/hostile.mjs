// The playground under hostile input (issue 36), on the CPU backend in Debian's
// headless Chromium: each case does what a user (or a broken disk, or a bug) could do
// and checks the page says what went wrong, never panics, and stays usable.
//
//   files        "Open a GGUF file" with a file that is not GGUF, a truncated GGUF, a
//                GGUF of an unsupported architecture, a GGUF whose load would not fit
//                in the memory left (its header declares 100,000 blocks), and a file
//                too big for the tab's 32-bit WebAssembly memory (3 GiB, sparse on
//                disk): each refused with its reason, the model loaded before kept, a
//                step generated after.
//   clicks       Generate, Step, Reset, Back, Forward, a file and a language switch
//                sent while a generation runs (their buttons force-enabled, as a click
//                landing before the redraw that disables them): the run goes on, the
//                page ends consistent (steps, chips, cursor, the code's language), and
//                the next Step starts a generation in the language switched to.
//   cache        The model's bytes in the browser's Cache Storage corrupted (16 bytes
//                flipped, same length): the next visit must notice (SHA-256), fetch the
//                model again, and leave a good copy in the cache.
//   panic        The worker panics mid-run (`?test-panic=run`, a test-only switch,
//                web/src/page_params.rs): the page shows the panic, ends the run, offers
//                "Start again", which loads the model in a new worker that generates.
//
// Usage: node web/tests/hostile.mjs <url> <results-dir>
// Writes <results-dir>/hostile.json (each case: passed, seconds, what the page said)
// and hostile-*.png. Exits 0 only when every check passed. Called by
// scripts/browser-test.sh.
import { chromium } from "playwright-core";
import { closeSync, ftruncateSync, mkdtempSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEnded } from "./page-load.mjs";

const [url, outDir] = process.argv.slice(2);
if (!url || !outDir) {
  console.error("usage: hostile.mjs <url> <results-dir>");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const MODEL = process.env.ESPALIER_BROWSER_GGUF || "static/models/SmolLM2-135M-Instruct.Q4_1.gguf";
const MODEL_URL = "models/SmolLM2-135M-Instruct.Q4_1.gguf";
const CACHE = "espalier-models-v1"; // web/js/host.js
const timeout = 5 * 60 * 1000;

const dir = mkdtempSync(join(tmpdir(), "espalier-hostile-"));
const failures = [];
const report = { url, cases: {} };
const log = (...a) => console.log("[hostile]", ...a);
const check = (ok, what) => { if (!ok) { failures.push(what); log("FAIL:", what); } else log("ok:", what); return ok; };

// --- the files -------------------------------------------------------------------------
const model = readFileSync(MODEL);
function writeFile(name, bytes) {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}
// The model with "llama" in general.architecture's value replaced by "mamba" (same
// length): a real file of an architecture the page does not load.
function otherArchitecture() {
  const key = Buffer.from("general.architecture");
  const at = model.indexOf(key);
  const value = at + key.length + 4 + 8; // the value's type (u32) and length (u64)
  if (at < 0 || model.toString("latin1", value, value + 5) !== "llama") throw new Error("general.architecture not found in the model");
  const copy = Buffer.from(model);
  copy.write("mamba", value, "latin1");
  return copy;
}
// The model with `llama.block_count` raised to 100,000: a file of the right size whose
// load (the memory plan from its header: a 2,048-token KV cache for 100,000 blocks,
// ~315 GB) cannot fit in what is left of the tab's memory.
function tooManyBlocks() {
  const key = Buffer.from("llama.block_count");
  const at = model.indexOf(key);
  if (at < 0) throw new Error("llama.block_count not found in the model");
  const type = model.readUInt32LE(at + key.length);
  const copy = Buffer.from(model);
  if (type === 4) copy.writeUInt32LE(100000, at + key.length + 4);
  else if (type === 10) copy.writeBigUInt64LE(100000n, at + key.length + 4);
  else throw new Error(`llama.block_count has GGUF type ${type}, not u32 or u64`);
  return copy;
}
// A 3 GiB file that starts like the model (sparse: 1 MB on disk): over what one
// buffer of a 32-bit WebAssembly memory can hold.
function tooBig() {
  const path = join(dir, "too-big.gguf");
  const fd = openSync(path, "w");
  writeSync(fd, model.subarray(0, 1 << 20));
  ftruncateSync(fd, 3 * 2 ** 30);
  closeSync(fd);
  return path;
}
const files = [
  { name: "not a GGUF file", path: writeFile("notes.gguf", "These are notes, not a model.\n".repeat(100)), error: /not a GGUF file: magic bytes/ },
  { name: "a truncated GGUF", path: writeFile("truncated.gguf", model.subarray(0, 8 << 20)), error: /outside the file \(8388608 bytes\)|truncated/ },
  { name: "an unsupported architecture", path: writeFile("mamba.gguf", otherArchitecture()), error: /unsupported architecture "mamba"/ },
  { name: "a model whose load needs more memory than is left", path: writeFile("huge-cache.gguf", tooManyBlocks()),
    error: /checking the memory: this model needs [\d.]+ GB more memory to load .* can grow by only/ },
  { name: "a model too big for wasm memory", path: tooBig(), error: /this file is 3\.2 GB but this tab's WebAssembly memory can hold a file of at most/ },
];

// --- the browser -----------------------------------------------------------------------
const context = await chromium.launchPersistentContext(join(dir, "profile"), {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  viewport: { width: 1400, height: 1000 },
});
const page = context.pages()[0] || (await context.newPage());
const pageErrors = [];
const consoleLines = [];
page.on("pageerror", (e) => { pageErrors.push(e.message); log("page error:", e.message.slice(0, 400)); });
page.on("console", (m) => {
  consoleLines.push(m.text());
  if (m.type() === "error") log("console error:", m.text().slice(0, 300));
});
const attr = (name) => page.$eval("#app", (el, n) => el.getAttribute(n), name);
const text = (sel) => page.$eval(sel, (el) => el.textContent).catch(() => null);
async function waitLoad() {
  await loadEnded(page, { timeout, polling: 100 });
  return attr("data-load");
}
async function waitRunEnd() {
  await page.waitForFunction(() => ["done", "paused", "error", "idle"].includes(document.querySelector("#app")?.getAttribute("data-run")),
    null, { timeout, polling: 100 });
  return attr("data-run");
}
async function stepOnce() {
  await page.click("#step", { timeout });
  await page.waitForFunction(() => document.querySelector("#app")?.getAttribute("data-run") !== "running", null, { timeout, polling: 100 });
  return { run: await attr("data-run"), steps: Number(await attr("data-steps")), status: await text("#run-status") };
}
// A click (or a change) on a control the page has disabled, as if it landed before
// the redraw that disabled it: the reducer must ignore what it cannot do now.
async function forced(selector, action = "click", value = null) {
  await page.evaluate(([sel, action, value]) => {
    const el = document.querySelector(sel);
    el.disabled = false;
    if (action === "click") el.click();
    else { el.value = value; el.dispatchEvent(new Event("change", { bubbles: true })); }
  }, [selector, action, value]);
}
async function runCase(name, body) {
  const t0 = Date.now();
  const before = failures.length;
  const entry = (report.cases[name] = {});
  try {
    await body(entry);
  } catch (e) {
    check(false, `${name}: ${e.message}`);
    await page.screenshot({ path: join(outDir, `hostile-${name}-failure.png`), fullPage: true }).catch(() => {});
  }
  entry.s = (Date.now() - t0) / 1000;
  entry.passed = failures.length === before;
  log(`${name}: ${entry.passed ? "passed" : "FAILED"} in ${entry.s.toFixed(1)} s`);
}

try {
  const t0 = Date.now();
  await page.goto(url);
  const load = await waitLoad();
  report.first_load_s = (Date.now() - t0) / 1000;
  if (!check(load === "ready" && (await attr("data-backend")) === "cpu", `the model loads on the CPU (${load}, ${await text("#loading")})`)) throw new Error("no model");

  await runCase("files", async (entry) => {
    const facts = await page.$$eval("#model-facts li", (els) => els.map((e) => e.textContent));
    const source = await attr("data-model-source");
    entry.refused = {};
    for (const f of files) {
      const t = Date.now();
      await page.setInputFiles("#gguf-file", f.path);
      const shown = await page.waitForFunction((name) => {
        const e = document.querySelector("#file-error");
        return e && e.textContent.includes(name) && document.querySelector("#app").getAttribute("data-load") !== "loading";
      }, f.path.split("/").pop(), { timeout, polling: 100 }).then(() => true, () => false);
      const said = await text("#file-error");
      entry.refused[f.name] = { said, s: (Date.now() - t) / 1000 };
      log(`${f.name}: ${said} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
      check(shown && f.error.test(said || ""), `files: ${f.name} is refused with its reason (${said})`);
      const kept = await page.$$eval("#model-facts li", (els) => els.map((e) => e.textContent));
      check((await attr("data-load")) === "ready" && (await attr("data-model-source")) === source && kept.join() === facts.join(),
        `files: after ${f.name} the model loaded before is still loaded (${await attr("data-load")}, ${await attr("data-model-source")})`);
      check(!(await page.$eval("#gguf-file", (el) => el.disabled)), `files: after ${f.name} another file can be opened`);
    }
    await page.screenshot({ path: join(outDir, "hostile-file-refused.png"), fullPage: true });
    await page.selectOption("#lang", "python");
    await page.click("#reset");
    const s = await stepOnce();
    check(s.run === "paused" && s.steps === 1, `files: the page still generates after the refused files (${s.run}, ${s.steps} steps: ${s.status})`);
  });

  await runCase("clicks", async (entry) => {
    // sLua: the longest of the examples (~80 tokens), so the clicks land mid-run.
    await page.selectOption("#lang", "slua");
    await page.click(`button.example:text-is("Fire bolt")`);
    await page.click("#reset");
    await page.click("#generate");
    await page.waitForFunction(() => Number(document.querySelector("#app")?.getAttribute("data-steps")) >= 2, null, { timeout, polling: 50 });
    const atClicks = Number(await attr("data-steps"));
    for (const sel of ["#generate", "#step", "#reset", "#back", "#forward"]) await forced(sel);
    await forced("#lang", "change", "go");
    // A file opened mid-run: ignored (the picker is off while generating), so the
    // page still says what it said about the last file refused before the run.
    const refusedBefore = await text("#file-error");
    await page.evaluate(() => { document.querySelector("#gguf-file").disabled = false; });
    await page.setInputFiles("#gguf-file", files[0].path);
    const runAfter = await attr("data-run");
    const stepsAfter = Number(await attr("data-steps"));
    entry.steps_at_clicks = atClicks;
    entry.run_after_clicks = runAfter;
    check(runAfter === "running", `clicks: the run goes on after Generate, Step, Reset, Back, Forward, a file and a language switch (${runAfter}, step ${stepsAfter})`);
    const refusedAfter = await text("#file-error");
    check(refusedAfter === refusedBefore && (await attr("data-load")) === "ready",
      `clicks: the file opened mid-run is ignored (${await attr("data-load")}; the file error before: ${refusedBefore}, after: ${refusedAfter})`);
    await page.waitForFunction((n) => Number(document.querySelector("#app")?.getAttribute("data-steps")) >= n + 2, stepsAfter, { timeout, polling: 50 });
    await page.click("#stop");
    const end = await waitRunEnd();
    const steps = Number(await attr("data-steps"));
    const chips = await page.$$eval("#chips .chip", (els) => els.length);
    const cursor = Number(await attr("data-cursor"));
    const shownLang = await page.$eval("#code-lang", (el) => el.dataset.lang);
    const formLang = await page.inputValue("#lang");
    Object.assign(entry, { end, steps, chips, cursor, shown_lang: shownLang, form_lang: formLang });
    log(`clicks: ${end} at ${steps} steps (${chips} chips, cursor ${cursor}); code in ${shownLang}, form on ${formLang}`);
    check(end === "paused" && steps === chips && cursor === steps && steps > stepsAfter,
      `clicks: Stop pauses a consistent page (${end}: ${steps} steps, ${chips} chips, cursor ${cursor})`);
    check(shownLang === "slua" && formLang === "go", `clicks: the code is labelled with its own language (slua), the form keeps the switch (go): ${shownLang}, ${formLang}`);
    await page.screenshot({ path: join(outDir, "hostile-clicks.png"), fullPage: true });
    const s = await stepOnce();
    const lang = await page.$eval("#code-lang", (el) => el.dataset.lang);
    check(s.run === "paused" && s.steps === 1 && lang === "go", `clicks: the next Step starts a Go generation (${s.run}, ${s.steps} steps, code in ${lang})`);
    await page.click("#reset");
  });

  await runCase("cache", async (entry) => {
    const flipped = await page.evaluate(async ([name, path]) => {
      const cache = await caches.open(name);
      const key = new URL(path, location.href).href;
      const found = await cache.match(key);
      if (!found) return null;
      const bytes = new Uint8Array(await found.arrayBuffer());
      const at = bytes.length >> 1;
      for (let i = 0; i < 16; i++) bytes[at + i] ^= 0xff;
      await cache.put(key, new Response(bytes, { headers: { "content-type": "application/octet-stream", "content-length": String(bytes.length) } }));
      return { at, length: bytes.length };
    }, [CACHE, MODEL_URL]);
    check(flipped !== null, `cache: the first visit left the model in Cache Storage (${JSON.stringify(flipped)})`);
    const requests = [];
    const onRequest = (r) => { if (r.url().endsWith(".gguf")) requests.push(r.url()); };
    page.on("request", onRequest);
    const linesBefore = consoleLines.length;
    const t = Date.now();
    await page.reload();
    const load = await waitLoad();
    page.off("request", onRequest);
    entry.reload_s = (Date.now() - t) / 1000;
    const source = await attr("data-model-source");
    const dropped = consoleLines.slice(linesBefore).find((l) => /cached model is dropped/.test(l));
    Object.assign(entry, { flipped, load, source, model_requests: requests.length, said: dropped });
    log(`cache: ${load} from ${source} in ${entry.reload_s.toFixed(1)} s, ${requests.length} model request(s); the worker said: ${dropped}`);
    check(load === "ready" && source === "the network" && requests.length > 0,
      `cache: the corrupted copy is not used, the model comes from the network (${load}, ${source}, ${requests.length} requests)`);
    check(/SHA-256 [0-9a-f]{64}, expected/.test(dropped || ""), `cache: the worker says why it dropped the copy (${dropped})`);
    const cached = await page.evaluate(async ([name, path]) => {
      const found = await (await caches.open(name)).match(new URL(path, location.href).href);
      if (!found) return null;
      const digest = await crypto.subtle.digest("SHA-256", await found.arrayBuffer());
      return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
    }, [CACHE, MODEL_URL]);
    const want = createHash("sha256").update(model).digest("hex");
    check(cached === want, `cache: a good copy is cached again (SHA-256 ${cached})`);
  });

  await runCase("panic", async (entry) => {
    await page.goto(`${url}${url.includes("?") ? "&" : "?"}test-panic=run`);
    const load = await waitLoad();
    check(load === "ready", `panic: the page loads with the switch on (${load})`);
    await page.click("#step");
    await page.waitForFunction(() => document.querySelector("#app")?.getAttribute("data-load") === "error", null, { timeout: 60_000, polling: 100 })
      .catch(() => {});
    const said = await text("#load-error");
    const run = await attr("data-run");
    const status = await text("#run-status");
    Object.assign(entry, { said, run, status });
    log(`panic: load ${await attr("data-load")}, run ${run} (${status}); the page says: ${said}`);
    check(/panicked/.test(said || "") && /test-panic=run/.test(said || ""), `panic: the page shows the worker's panic (${said})`);
    check(run === "error" && (await page.$eval("#generate", (el) => el.disabled)) && !!(await page.$("#restart")),
      `panic: the run ends as failed, Generate is off, Start again is offered (${run})`);
    await page.screenshot({ path: join(outDir, "hostile-panic.png"), fullPage: true });
    const t = Date.now();
    await page.click("#restart");
    const again = await waitLoad();
    entry.restart_s = (Date.now() - t) / 1000;
    check(again === "ready" && (await attr("data-model-source")) === "the browser's cache",
      `panic: Start again loads the model in a new worker (${again} in ${entry.restart_s.toFixed(1)} s, from ${await attr("data-model-source")})`);
    const s = await stepOnce();
    check(s.run === "paused" && s.steps === 1, `panic: the new worker generates (${s.run}, ${s.steps} steps: ${s.status})`);
  });
} catch (e) {
  check(false, `exception: ${e.message}`);
  log(e.stack);
  await page.screenshot({ path: join(outDir, "hostile-failure.png"), fullPage: true }).catch(() => {});
} finally {
  await context.close();
  rmSync(dir, { recursive: true, force: true });
}
check(pageErrors.length === 0, `no uncaught error on the page (${JSON.stringify(pageErrors.map((e) => e.slice(0, 200)))})`);
report.page_errors = pageErrors;
report.failures = failures;
writeFileSync(join(outDir, "hostile.json"), JSON.stringify(report, null, 2) + "\n");
if (failures.length) {
  log(`${failures.length} check(s) failed:\n  - ${failures.join("\n  - ")}`);
  process.exit(1);
}
log("all checks passed");
