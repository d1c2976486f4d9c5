// Drives the Espalier playground in Debian's headless Chromium with playwright-core:
// loads the model, generates a Python function and an sLua talent, checks them,
// steps back and forward, saves screenshots and prints the speeds.
//
// Usage: node web/tests/browser.mjs <url> <webgpu|cpu> <results-dir>
// Exits 0 only when every check passed. Called by scripts/browser-test.sh.
import { chromium } from "playwright-core";
import { existsSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { spawnSync } from "node:child_process";
import { playGame } from "./game.mjs";
import { countGpuWork, countGreedyDecode } from "./gpu-counts.mjs";
import { markGeneration, startCpuTrace, stopCpuTrace } from "./main-thread-cpu.mjs";
import { loadEnded } from "./page-load.mjs";

const [siteUrl, backend, outDir] = process.argv.slice(2);
// The WebGPU run asks for WebGPU whatever its speed (`?backend=webgpu`): without it the
// page's warm-up race (web/src/backend_race.rs) keeps the CPU, which on SwiftShader is
// many times faster. web/tests/backend-race.mjs checks that race.
const url = backend === "webgpu" && siteUrl ? `${siteUrl}${siteUrl.includes("?") ? "&" : "?"}backend=webgpu` : siteUrl;
if (!siteUrl || !["webgpu", "cpu"].includes(backend) || !outDir) {
  console.error("usage: browser.mjs <url> <webgpu|cpu> <results-dir>");
  process.exit(2);
}
// Budgets: the Python answer ends at the first top-level line after the function
// (stop strings), the sLua one closes its script when `wrapUp` tokens are left (the
// wrap-up's finishing mask), so both finish well inside these.
const maxTokens = {
  python: process.env.ESPALIER_BROWSER_MAX_TOKENS_PYTHON || "64",
  slua: process.env.ESPALIER_BROWSER_MAX_TOKENS_SLUA || "120",
  go: process.env.ESPALIER_BROWSER_MAX_TOKENS_GO || "96",
  // Fill in the middle (Python): the wrap-up steers the middle to join the suffix.
  fim: process.env.ESPALIER_BROWSER_MAX_TOKENS_FIM || "40",
};
const wrapUp = { python: "48", slua: process.env.ESPALIER_BROWSER_WRAP_UP || "48", go: "48", fim: "24" };
// The example each run picks (static/examples/examples.json), by its button title.
const example = {
  python: process.env.ESPALIER_BROWSER_EXAMPLE_PYTHON || "Add two numbers",
  slua: process.env.ESPALIER_BROWSER_EXAMPLE_SLUA || "Fire bolt",
  go: process.env.ESPALIER_BROWSER_EXAMPLE_GO || "Sum a slice",
  fim: process.env.ESPALIER_BROWSER_EXAMPLE_FIM || "Loop body",
};
const generationTimeoutMs = Number(process.env.ESPALIER_BROWSER_TIMEOUT_S || (backend === "webgpu" ? "900" : "480")) * 1000;
const checkers = {
  python: process.env.ESPALIER_CHECK_PYTHON || "python3 -c \"import ast,sys; ast.parse(open(sys.argv[1]).read())\"",
  slua: process.env.ESPALIER_CHECK_SLUA || "",
  // The page's Lua translation in real Lua 5.4 (compiled, loaded, every hook called in
  // a sandbox built from the API file): independent of the project's checker and engine.
  lua: process.env.ESPALIER_CHECK_LUA || "python3 scripts/lua-check.py --kind talent",
  // Go's own parser; the page writes the function after the package clause its
  // prompt supplies, which the check puts back (`filePrefix`).
  go: process.env.ESPALIER_CHECK_GO || "gofmt -e",
  // The whole file (prefix + middle + suffix) as the page shows it.
  fim: process.env.ESPALIER_CHECK_PYTHON || "python3 -c \"import ast,sys; ast.parse(open(sys.argv[1]).read())\"",
};
const filePrefix = { go: "package main\n\n" };
// The page's language of each run.
const pageLang = { python: "python", slua: "slua", go: "go", fim: "python" };
mkdirSync(outDir, { recursive: true });

const flags = [
  "--no-sandbox", "--disable-background-networking", "--disable-component-update",
  "--disable-sync", "--no-first-run", "--disable-quic",
];
if (backend === "webgpu") flags.push("--enable-unsafe-webgpu");

const profile = mkdtempSync(join(tmpdir(), "espalier-chromium-"));
const failures = [];
const report = { backend, url, flags, runs: {} };
const log = (...a) => console.log(`[${backend}]`, ...a);
const check = (ok, what) => { if (!ok) { failures.push(what); log("FAIL:", what); } else log("ok:", what); };

const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: flags,
  viewport: { width: 1400, height: 1000 },
});
// Main-thread blocks: every task over 50 ms (the Long Tasks API), collected from the
// first script on, so the test can say how long the page was frozen in each phase.
await context.addInitScript(() => {
  window.__longtasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longtasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  } catch (e) {
    window.__longtasksError = String(e);
  }
});
const page = context.pages()[0] || (await context.newPage());
page.on("console", (m) => {
  if (m.type() === "error" || m.type() === "warning" || m.text().startsWith("espalier:")) log("console", m.type(), m.text().slice(0, 400));
});
page.on("pageerror", (e) => { log("page error:", e.message); failures.push(`page error: ${e.message}`); });

const pageNow = () => page.evaluate(() => performance.now());
// The main-thread blocks (long tasks) that started in [from, to) (page milliseconds):
// how many, the longest and their sum.
async function blocks(from, to) {
  const all = await page.evaluate(() => window.__longtasks || []);
  const inside = all.filter(([start]) => start >= from && start < to).map(([, d]) => d);
  return {
    count: inside.length,
    max_ms: Math.round(Math.max(0, ...inside)),
    total_ms: Math.round(inside.reduce((a, b) => a + b, 0)),
  };
}
const fmtBlocks = (b) => `${b.count} blocks over 50 ms, longest ${b.max_ms} ms, ${b.total_ms} ms in all`;

const attr = (name) => page.$eval("#app", (el, n) => el.getAttribute(n), name);

async function waitRunEnd(timeoutMs) {
  await page.waitForFunction(() => {
    const s = document.querySelector("#app")?.getAttribute("data-run");
    return s === "done" || s === "paused" || s === "error";
  }, null, { timeout: timeoutMs, polling: 250 });
  return attr("data-run");
}

async function validate(lang, code) {
  const cmd = checkers[lang];
  if (!cmd) return { ok: false, why: `no checker for ${lang} (set ESPALIER_CHECK_${lang.toUpperCase()})` };
  const file = join(profile, `generated.${{ python: "py", slua: "slua", lua: "lua", go: "go", fim: "py" }[lang]}`);
  writeFileSync(file, (filePrefix[lang] || "") + code);
  const r = spawnSync("sh", ["-c", `${cmd} "$1"`, "check", file], { encoding: "utf8" });
  const why = `${r.stdout || ""}${r.stderr || ""}`.trim().slice(0, 600) || `exit status ${r.status}`;
  return { ok: r.status === 0, why };
}

async function setNumber(id, value) {
  await page.fill(`#${id}`, value);
  await page.dispatchEvent(`#${id}`, "change");
}

// Runs one generation: `lang` is python, slua, go, or fim (Python, fill in the
// middle: the prefix and suffix of an example, the middle written between them).
async function generate(lang, mode) {
  await page.selectOption("#lang", pageLang[lang]);
  await page.selectOption("#mode", mode);
  if (await page.$("#fim")) await page.setChecked("#fim", lang === "fim");
  await page.click(`button.example:text-is("${example[lang]}")`);
  await setNumber("max-tokens", maxTokens[lang]);
  if (wrapUp[lang]) await setNumber("wrap-up", wrapUp[lang]);
  await page.click("#reset");
  const t0 = Date.now();
  const clickAt = await pageNow();
  // The constraints were compiled while loading: the click returns at once.
  // The main thread's CPU time per task during this generation (main-thread-cpu.mjs):
  // one trace per generation, so its buffer holds the whole window however long it runs.
  const cpuTrace = await startCpuTrace(context, page);
  await markGeneration(page, lang, "start");
  const clickT0 = Date.now();
  await page.click("#generate", { timeout: generationTimeoutMs });
  const clickMs = Date.now() - clickT0;
  const state = await waitRunEnd(generationTimeoutMs);
  await markGeneration(page, lang, "end");
  (report.main_thread_cpu ||= {})[lang] = (await stopCpuTrace(cpuTrace))[lang] ?? null;
  const wallS = (Date.now() - t0) / 1000;
  const endAt = await pageNow();
  const code = await page.$eval("#code", (el) => el.textContent);
  const steps = Number(await attr("data-steps"));
  const t = await page.$eval("#timings", (el) => ({
    ttft_ms: Number(el.dataset.ttftMs), tokens_per_s: Number(el.dataset.tokensPerS), prompt_tokens: Number(el.dataset.promptTokens),
    prefill_ms: Number(el.dataset.prefillMs), model_ms_per_token: Number(el.dataset.modelMs), constraint_ms_per_token: Number(el.dataset.constraintMs),
  }));
  const wrapSteps = await page.$$eval("#chips .chip.wrap", (els) => els.length);
  // ttft_ms counts from the click's handler, so the first token came at about
  // clickAt + ttft_ms: blocks before it are the start (constraint, prompt), after it the
  // per-token steps.
  const firstAt = clickAt + (Number.isFinite(t.ttft_ms) ? t.ttft_ms : 0);
  const mainThread = {
    click_ms: clickMs,
    until_first_token: await blocks(clickAt, firstAt),
    after_first_token: await blocks(firstAt, endAt + 1),
  };
  log(`${lang} main thread: click returned in ${clickMs} ms; until the first token ${fmtBlocks(mainThread.until_first_token)}; ` +
      `after it ${fmtBlocks(mainThread.after_first_token)}`);
  const status = await page.$eval("#run-status", (el) => el.textContent);
  log(`${lang}/${mode}: ${state} (${status}) in ${wallS.toFixed(1)} s, ${steps} tokens (${wrapSteps} wrapping up), ` +
      `first token ${t.ttft_ms} ms (prompt ${t.prompt_tokens} tokens), ${t.tokens_per_s.toFixed(2)} tokens/s, ` +
      `per token: model ${t.model_ms_per_token} ms, constraint ${t.constraint_ms_per_token} ms`);
  log(`${lang} code:\n${code}`);
  await page.screenshot({ path: join(outDir, `${backend}-${lang}.png`), fullPage: true });
  check(state === "done", `${lang}: generation finished (${status})`);
  check(!/max_tokens|repetition|repeated_lines|dead_end/.test(status), `${lang}: ended on its own (${status})`);
  check(steps > 0 && code.trim().length > 0, `${lang}: produced code`);
  const v = await validate(lang, code);
  check(v.ok, `${lang}: output is valid ${lang}${v.ok ? "" : ": " + v.why}`);
  let fim = null;
  if (lang === "fim") {
    // The file the page shows is the boxes' prefix, the middle, the boxes' suffix; the
    // inspector says what the suffix still needs (at the last step: nothing).
    fim = {
      prefix: await page.inputValue("#fim-prefix"),
      suffix: await page.inputValue("#fim-suffix"),
      middle: await page.$eval("#middle", (el) => el.textContent),
      needs: await page.$$eval("#needs li", (els) => els.map((e) => e.textContent)),
    };
    log(`fim: middle ${JSON.stringify(fim.middle)}; the inspector's needs: ${JSON.stringify(fim.needs)}`);
    check(code === fim.prefix + fim.middle + fim.suffix && fim.middle.length > 0, "fim: the page shows prefix + middle + suffix");
    check(fim.needs.length > 0 && /joins the suffix now/.test(fim.needs[0]), `fim: the inspector says the middle joins the suffix (${fim.needs[0]})`);
    await page.click("#back");
    const earlier = await page.$$eval("#needs li", (els) => els.map((e) => e.textContent));
    log(`fim: one step back the inspector says ${JSON.stringify(earlier)}`);
    check(earlier.length > 0, "fim: the inspector shows the suffix's needs at an earlier step");
    await page.click("#forward");
  }
  let lua = null;
  let luaReal = null;
  if (lang === "slua") {
    lua = await page.$eval("#lua", (el) => ({ text: el.textContent, error: el.classList.contains("error") })).catch(() => null);
    check(lua && !lua.error && /function/.test(lua.text), "slua: the page shows the translated Lua");
    if (lua && !lua.error) {
      const l = await validate("lua", lua.text);
      luaReal = l.ok;
      check(l.ok, `slua: the translated Lua runs in real Lua 5.4 (${l.ok ? l.why : "scripts/lua-check.py: " + l.why})`);
      report.game = await playGame(page, { lua: lua.text, dir: profile, outDir, backend, check, log });
    }
  }
  report.runs[lang] = { mode, example: example[lang], max_tokens: Number(maxTokens[lang]), state, status, steps,
    wrap_up_steps: wrapSteps, wall_s: wallS, ...t, main_thread: mainThread, code, valid: v.ok, lua: lua?.text, lua_runs_in_lua54: luaReal, fim };
  return steps;
}

async function backAndForward() {
  const steps = Number(await attr("data-steps"));
  const before = await page.$eval("#code", (el) => el.textContent);
  const n = Math.min(3, steps);
  for (let i = 0; i < n; i++) await page.click("#back");
  const cursor = Number(await attr("data-cursor"));
  const mid = await page.$eval("#code", (el) => el.textContent);
  check(cursor === steps - n, `back ${n}: cursor ${cursor} = ${steps - n}`);
  check(before.startsWith(mid) && mid.length <= before.length, "back: shown code is a prefix of the full code");
  await page.screenshot({ path: join(outDir, `${backend}-back.png`), fullPage: true });
  for (let i = 0; i < n; i++) await page.click("#forward");
  const after = await page.$eval("#code", (el) => el.textContent);
  check(Number(await attr("data-cursor")) === steps && after === before, "forward: back at the last step with the same code");
  // Back to the middle, then Step: the generator rewinds and recomputes that step
  // (greedy: the same token and text).
  for (let i = 0; i < n; i++) await page.click("#back");
  await page.click("#forward");
  const want = await page.$eval("#code", (el) => el.textContent);
  await page.click("#back");
  await page.click("#step", { timeout: generationTimeoutMs });
  const endState = await waitRunEnd(generationTimeoutMs);
  const again = await page.$eval("#code", (el) => el.textContent);
  const got = Number(await attr("data-steps"));
  check(got === steps - n + 1 && again === want,
    `back + step: step ${steps - n + 1} is recomputed identically (greedy): ${endState}, ${got} steps, ` +
    `${JSON.stringify(again)} vs ${JSON.stringify(want)}`);
  // The resume checks test the decode loop's rewind, which does not depend on the
  // backend: the CPU run does them (on SwiftShader each step costs ~10-20 s).
  if (backend !== "cpu" && !process.env.ESPALIER_BROWSER_RESUME_CHECKS) return;
  // Generate from there: the rest of the generation comes out the same.
  await page.click("#generate", { timeout: generationTimeoutMs });
  const resumed = await waitRunEnd(generationTimeoutMs);
  const full = await page.$eval("#code", (el) => el.textContent);
  check(resumed === "done" && Number(await attr("data-steps")) === steps && full === before,
    `resume with Generate: the same ${steps} steps and code (${resumed}, ${await attr("data-steps")} steps)`);
  // Back over the last step (which a stop string may have ended, cutting text) and
  // Step: the rewind restores what the stop string cut, so the step and the final
  // text come out the same.
  await page.click("#back");
  await page.click("#step", { timeout: generationTimeoutMs });
  const lastState = await waitRunEnd(generationTimeoutMs);
  const last = await page.$eval("#code", (el) => el.textContent);
  check(lastState === "done" && Number(await attr("data-steps")) === steps && last === before,
    `back over the last step + step: the same final code (${lastState}, ${JSON.stringify(last)} vs ${JSON.stringify(before)})`);
}

// Mode `names` (Python; the exact mask less the reads of names no scope binds): a few
// steps of the Python example, then back over them until the cursor is in the body of
// the function the model wrote: the inspector lists the names in scope there, which
// must include the function's parameters (the prompt asks for `add(a, b)`).
async function namesRun() {
  const budget = process.env.ESPALIER_BROWSER_MAX_TOKENS_NAMES || "20";
  // The settings the runs after this one found before it, put back at its end.
  const before = { mode: await page.inputValue("#mode"), maxTokens: await page.inputValue("#max-tokens"),
    wrapUp: await page.inputValue("#wrap-up") };
  await page.selectOption("#lang", "python");
  await page.selectOption("#mode", "names");
  if (await page.$("#fim")) await page.setChecked("#fim", false);
  await page.click(`button.example:text-is("${example.python}")`);
  await setNumber("max-tokens", budget);
  // The wrap-up starts when this many tokens are left: under the page's 48 the whole
  // run would be the finishing mask, whose shortest way out is the empty program.
  await setNumber("wrap-up", "4");
  await page.click("#reset");
  const t0 = Date.now();
  await page.click("#generate", { timeout: generationTimeoutMs });
  const state = await waitRunEnd(generationTimeoutMs);
  const steps = Number(await attr("data-steps"));
  const code = await page.$eval("#code", (el) => el.textContent);
  log(`names: ${state} in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${steps} tokens:\n${code}`);
  check(state === "done" && steps > 0, `names: the generation ran (${state}, ${steps} steps)`);
  const def = /def\s+\w+\(([^)]*)\)\s*(->[^:]*)?:/.exec(code);
  const params = def ? def[1].split(",").map((p) => p.split(/[:=]/)[0].trim()).filter(Boolean) : [];
  check(params.length > 0, `names: the model wrote a function with parameters (${JSON.stringify(params)})`);
  // From the last step back: the first step whose code ends inside the function's body
  // (after its header, the last line indented) shows what the body sees.
  let seen = null;
  for (let i = steps; i > 0 && seen === null; i--) {
    const shown = await page.$eval("#code", (el) => el.textContent);
    const last = shown.split("\n").pop();
    if (def && shown.includes(def[0]) && /^\s+\S/.test(last)) {
      seen = { step: i, code: shown, names: await page.$$eval("#names li", (els) => els.map((e) => e.textContent)) };
    } else if (i > 1) {
      await page.click("#back");
    }
  }
  log(`names: the inspector in the body: ${JSON.stringify(seen)}`);
  report.names = { mode: "names", max_tokens: Number(budget), state, steps, code, params, in_body: seen };
  check(seen !== null && params.every((p) => seen.names.includes(p)),
    `names: the inspector lists the parameters ${JSON.stringify(params)} in the function's body (${JSON.stringify(seen?.names)})`);
  await page.screenshot({ path: join(outDir, `${backend}-names.png`), fullPage: true });
  await page.selectOption("#mode", before.mode);
  await setNumber("max-tokens", before.maxTokens);
  await setNumber("wrap-up", before.wrapUp);
}

// Stop while generating: a click while tokens are still coming. The run pauses with at
// most one more step after those the page shows at the click (the one in flight):
// the worker reads the Stop between two steps, and the Stop says how many steps to
// keep, so steps the worker ran ahead of a slow page (reports sent, not yet drawn:
// seen on a loaded 2-core CI machine, 4 steps past the click) are undone and their
// reports left out. Generate then resumes to the same end, which checks the undoing.
// The click must land while the run is still going: a run that ended first fails the
// check (the page shows each step as it comes, so it cannot).
//
// The page clicks in the task that shows a new step (a MutationObserver on the step
// count), after the second step is shown, so the click lands mid-run. To test the
// undoing every time (not only on a loaded machine), that task first keeps the page's
// thread busy for three steps' time (the interval between the two steps shown before),
// as a slow page would: the worker runs ahead, and must undo what it ran ahead (its
// console says how many steps it undid). When the worker could not get ahead (on a
// loaded machine it waits for a core too), once more from a new generation with the
// page busy for five steps' time (a generation of 15 steps: more could end it first).
async function stopCheck() {
  let a = await stopAttempt(3);
  if (a.state === "paused" && a.undone.length === 0) {
    // The worker did not get ahead while the page was busy (it waited for a core too):
    // once more, the page busy for longer.
    log(`stop: the worker ran no step ahead in ${a.busyMs} ms; again with the page busy for five steps' time`);
    a = await stopAttempt(5);
  }
  const { atClick, runAtClick, clickAt, busyMs, state, stopMs, after, endAt, t, undone } = a;
  report.stop = { steps_at_click: atClick, run_at_click: runAtClick, steps_after: after, ms_to_pause: stopMs, state,
    page_busy_ms: busyMs, worker_undid: undone, attempts: a.attempt,
    ms_per_step: Number.isFinite(t.tokens_per_s) && t.tokens_per_s > 0 ? Math.round(1000 / t.tokens_per_s) : null,
    main_thread: await blocks(clickAt, endAt + 1) };
  report.stop.exercised = runAtClick === "running";
  check(report.stop.exercised, `stop: the click landed while tokens were still coming (run ${runAtClick} at step ${atClick})`);
  check(undone.length === 1 && undone[0] >= 1,
    `stop: the worker undid the steps it ran ahead while the page was busy for ${busyMs} ms (undid ${JSON.stringify(undone)})`);
  check(state === "paused" && after - atClick <= 1,
    `stop: paused ${stopMs} ms after the click with ${after - atClick} more step(s) (${state}, ${atClick} -> ${after}; ` +
    `a step takes ~${report.stop.ms_per_step} ms)`);
  await page.click("#generate", { timeout: generationTimeoutMs });
  const resumed = await waitRunEnd(generationTimeoutMs);
  const code = await page.$eval("#code", (el) => el.textContent);
  const stepsEnd = Number(await attr("data-steps"));
  check(resumed === "done" && code === report.runs.python?.code && stepsEnd === report.runs.python?.steps,
    `stop + generate: resumes to the same code in the same steps (${resumed}, ${stepsEnd} steps, ${report.runs.python?.steps} before)`);
}

let stopAttempts = 0;

// One Stop click from a new generation, the page's thread kept busy for `intervals`
// times the interval between the two steps shown before it (at most 4 s).
async function stopAttempt(intervals) {
  stopAttempts += 1;
  await page.click("#reset");
  await page.click("#generate", { timeout: generationTimeoutMs });
  await page.waitForFunction(() => Number(document.querySelector("#app")?.getAttribute("data-steps")) >= 2,
    null, { timeout: generationTimeoutMs, polling: 20 });
  const undone = [];
  const onUndo = (m) => {
    const u = /^espalier: stop: undid (\d+) step/.exec(m.text());
    if (u) undone.push(Number(u[1]));
  };
  page.on("console", onUndo);
  // The step count, the run state and the click in one page task, so no step lands
  // between them.
  const t0 = Date.now();
  const [atClick, runAtClick, clickAt, busyMs] = await page.evaluate((intervals) => new Promise((resolve) => {
    const app = document.querySelector("#app");
    const steps = () => Number(app.getAttribute("data-steps"));
    const seen = [[steps(), performance.now()]];
    const clickNow = (busyMs) => {
      const n = steps();
      const run = app.getAttribute("data-run");
      document.querySelector("#stop").click();
      resolve([n, run, performance.now(), busyMs]);
    };
    // Already over (or no further step coming): click at once; the checks below say so.
    if (app.getAttribute("data-run") !== "running") return clickNow(0);
    const observer = new MutationObserver(() => {
      if (steps() === seen[seen.length - 1][0] && app.getAttribute("data-run") === "running") return;
      seen.push([steps(), performance.now()]);
      if (app.getAttribute("data-run") === "running" && seen.length < 3) return;
      observer.disconnect();
      const [[n0, t0], [n1, t1]] = seen.slice(-2);
      const busyMs = Math.min(4000, (intervals * (t1 - t0)) / Math.max(1, n1 - n0));
      const until = performance.now() + busyMs;
      while (performance.now() < until) { /* the page's thread is busy; the worker is not */ }
      clickNow(Math.round(busyMs));
    });
    observer.observe(app, { attributes: true, attributeFilter: ["data-steps", "data-run"] });
  }), intervals);
  const state = await waitRunEnd(generationTimeoutMs);
  const stopMs = Date.now() - t0;
  const after = Number(await attr("data-steps"));
  const endAt = await pageNow();
  const t = await page.$eval("#timings", (el) => ({ tokens_per_s: Number(el.dataset.tokensPerS) }));
  // The worker's console line comes before its end report, but over another channel.
  for (let i = 0; i < 40 && undone.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  page.off("console", onUndo);
  return { atClick, runAtClick, clickAt, busyMs, state, stopMs, after, endAt, t, undone, attempt: stopAttempts };
}

// The weights' format and GPU bytes on WebGPU (issue 15: the file's quantized blocks,
// not f32 copies), and the worker's comparison with the CPU path's logits.
function gpuWeights(detail, checkCpu) {
  const w = /weights (\S+) \(([\d.]+) MB on the GPU\)/.exec(detail);
  report.gpu_weights = w ? { format: w[1], mb: Number(w[2]) } : null;
  log(`WebGPU weights: ${JSON.stringify(report.gpu_weights)}`);
  check(w && w[1] === "gpu-blocks" && Number(w[2]) < 200,
    `webgpu: the weights stay quantized on the GPU (${w ? `${w[1]}, ${w[2]} MB` : "not reported"})`);
  if (!checkCpu) return;
  const a = /CPU agreement over (\d+) steps: max \|Δlogit\| ([\d.e+-]+) \(CPU f32 activations\), ([\d.e+-]+) \(CPU int8 activations\), greedy token equal (\d+)\/(\d+)/.exec(detail);
  report.cpu_agreement = a
    ? { steps: Number(a[1]), max_logit_diff_f32: Number(a[2]), max_logit_diff_int8: Number(a[3]), same_greedy: Number(a[4]) }
    : { error: (/CPU agreement failed: [^;]*/.exec(detail) || ["not reported"])[0] };
  const m = /GPU allocator after it: ([\d.]+) MB in use, ([\d.]+) MB reserved/.exec(detail);
  if (m && report.gpu_weights) Object.assign(report.gpu_weights, { allocator_mb_in_use: Number(m[1]), allocator_mb_reserved: Number(m[2]) });
  log(`WebGPU logits against the CPU path: ${JSON.stringify(report.cpu_agreement)}; GPU allocator: ${m ? m.slice(1).join(" MB in use, ") + " MB reserved" : "not reported"}`);
  check(a && a[4] === a[5] && Number(a[2]) < 0.05,
    `webgpu: the same greedy tokens as the CPU path and logits within 0.05 of its f32 twin (${JSON.stringify(report.cpu_agreement)})`);
  // The CPU fallback's default path rounds activations to 8 bits (as llama.cpp does for
  // Q4_1): crates/model/tests/it/model_golden.rs accepts it within 1.0 of llama.cpp on the
  // top-5 logits, and one flipped rounding moves a logit by up to 0.7 on this model.
  // Over the whole vocabulary and 5 steps it measured 0.956 (two runs); 1.5 is that
  // with headroom, well under the gap that would change greedy picks wholesale.
  check(a && Number(a[3]) < 1.5,
    `webgpu: the CPU fallback's 8-bit activation path within 1.5 of the f32 logits (${a ? a[3] : "not reported"})`);
}

// WebGPU work per token (issue 15), counted in the model's worker: see gpu-counts.mjs.
async function gpuWork() {
  const stepOnce = async () => {
    const before = Number(await attr("data-steps"));
    await page.click("#step", { timeout: generationTimeoutMs });
    await page.waitForFunction((n) => Number(document.querySelector("#app")?.getAttribute("data-steps")) > n,
      before, { timeout: generationTimeoutMs, polling: 100 });
    await waitRunEnd(generationTimeoutMs);
  };
  const decodeSteps = Number(process.env.ESPALIER_BROWSER_GPU_COUNT_STEPS || "3");
  report.gpu_counts = await countGpuWork(page, { decodeSteps, stepOnce, log });
  log(`WebGPU per decoded token: ${JSON.stringify(report.gpu_counts.per_decode_token ?? report.gpu_counts)}`);
  log(`WebGPU prefill + first token: ${JSON.stringify(report.gpu_counts.prefill_and_first_token ?? null)}`);
  log(`WebGPU first decoded token (records the step the next ones replay, unless the cache kept an earlier generation's recording through the prompt): ${JSON.stringify(report.gpu_counts.recording_step ?? null)}`);
  check(report.gpu_counts.per_decode_token?.dispatches > 0, "webgpu: kernel launches counted in the model's worker");
  // Ceilings per decoded token (issue 33). Launches: the target is at most 10 a block;
  // the model's own kernels make 9 (crates/model/src/llama/gpu_block.rs), plus the final
  // norm, the head and the step's lists or argmax: 10 x blocks + 8 leaves room for those
  // and a few of burn's, and fails at once if the blocks fall back to burn's element-wise
  // ops (~29 a block under fusion, ~53 without). Submits: the pass is recorded into one
  // command buffer (espalier_model::WGPU_TASKS_MAX); a step with a mask to compute (the
  // visualized, constrained one) submits it at once, so the GPU runs it while the CPU
  // computes the mask (1); the read-back then submits the lists' launches (2) and, in
  // cubecl-wgpu 0.11, its staging copy in a submit of its own (3: cubecl-wgpu's
  // compute/stream.rs, read_resources): at most 3. A step with nothing to prepare (the
  // unconstrained greedy bench below) sends the pass with the read-back's first submit:
  // at most 2 (29 under fusion with cubecl's default of 32 tasks a submit). Read-back: a step
  // copies only what it draws from (the draw list under the mask and the visualizer's
  // candidates, crates/model/src/llama/gpu_top.rs: 152 bytes; a greedy token without
  // the visualizer the argmax's 4), at most 1 KiB, and maps that staging buffer whole:
  // cubecl-wgpu 0.11's staging memory is exclusive pages, the smallest 16 KiB, so at
  // most 16 KiB mapped (the whole logits vector, 196,608 bytes, before).
  const blocks = Number((/(\d+) blocks/.exec(report.backend_detail || "") || [])[1] || 30);
  const vocab = Number((/vocab (\d+)/.exec(report.backend_detail || "") || [])[1] || 49152);
  const maxDispatches = 10 * blocks + 8;
  const step = report.gpu_counts.per_decode_token || {};
  check(step.dispatches <= maxDispatches,
    `webgpu: a visualized step launches at most ${maxDispatches} kernels (10 a block + 8; counted ${step.dispatches})`);
  check(step.submits <= 3, `webgpu: a visualized step is at most 3 submits (counted ${step.submits})`);
  check(step.copy_buffer_bytes <= 1024,
    `webgpu: a visualized step copies at most 1 KiB to be read back, not the ${4 * vocab}-byte logits (counted ${step.copy_buffer_bytes})`);
  check(step.map_read_bytes <= 16384,
    `webgpu: a visualized step maps at most one 16 KiB staging page (counted ${step.map_read_bytes})`);
  // Replay (crates/model/src/llama/gpu_replay.rs): the first decoded token records the
  // step (its warm-up pass runs, then the recording is replayed: about two passes) unless
  // the cache kept a recording through the prompt (stop 47: a prompt written in place
  // keeps it, so after the page's reset this token replays); later tokens replay it,
  // creating no bind groups for its launches (launch by launch: one a launch, ~275).
  const rec = report.gpu_counts.recording_step || {};
  check(rec.dispatches <= 2 * maxDispatches,
    `webgpu: the recording step launches at most two steps' kernels (${2 * maxDispatches}; counted ${rec.dispatches})`);
  check(step.create_bind_group_calls <= 16,
    `webgpu: a visualized step replays the recorded step (at most 16 bind groups created; counted ${step.create_bind_group_calls})`);
  if (process.env.ESPALIER_BROWSER_GREEDY_COUNTS === "0") return;
  report.gpu_counts_greedy = await countGreedyDecode(page, {
    prompt: "def add(a, b):", decodeSteps, timeoutMs: generationTimeoutMs, log,
  });
  const g = report.gpu_counts_greedy.per_decode_token || {};
  log(`WebGPU per greedy token (no visualizer): ${JSON.stringify(report.gpu_counts_greedy)}`);
  check(g.dispatches > 0 && g.dispatches <= maxDispatches,
    `webgpu: a greedy token launches at most ${maxDispatches} kernels (counted ${g.dispatches})`);
  check(g.submits <= 2, `webgpu: an unconstrained greedy token is at most 2 submits (counted ${g.submits})`);
  check(g.create_bind_group_calls <= 16,
    `webgpu: a greedy token replays the recorded step (at most 16 bind groups created; counted ${g.create_bind_group_calls})`);
  check(g.copy_buffer_bytes <= 1024,
    `webgpu: a greedy token copies at most 1 KiB to be read back (counted ${g.copy_buffer_bytes})`);
  check(g.map_read_bytes <= 16384,
    `webgpu: a greedy token maps at most one 16 KiB staging page (counted ${g.map_read_bytes})`);
}

// "Open a GGUF file": the project's model through the file picker (read in the page's
// worker, never uploaded), its facts shown, then one step generated with it. Then, where
// scripts/browser-test.sh wrote one, a model of another family (a small synthetic
// `qwen2` GGUF in Qwen2's 151,936-token vocabulary, `espalier_model::synthetic`): it
// must load, show its own facts, and write masked Python steps with that vocabulary.
async function openFile() {
  const path = process.env.ESPALIER_BROWSER_GGUF || "static/models/SmolLM2-135M-Instruct.Q4_1.gguf";
  await openOneFile("open a GGUF file", path, /llama architecture/, /Q4_1 ×/, 1);
  const qwen2 = process.env.ESPALIER_BROWSER_GGUF_QWEN2 ?? "target/browser-test/qwen2-synthetic.gguf";
  if (qwen2 && existsSync(qwen2)) {
    await openOneFile("open a qwen2 GGUF file", qwen2, /qwen2 architecture/, /× /, 4);
  } else {
    log(`open a qwen2 GGUF file: not run (no synthetic file at '${qwen2}')`);
  }
}

async function openOneFile(what, path, archRe, formatRe, steps) {
  const t0 = Date.now();
  await page.setInputFiles("#gguf-file", path);
  // The page must say the model comes from the picked file: without this the checks
  // below would pass on the model loaded before (the same SmolLM2) with a broken picker.
  const picked = await page.waitForFunction((name) => {
    const app = document.querySelector("#app");
    return (app?.getAttribute("data-model-source") || "").startsWith("your file") &&
      (app?.getAttribute("data-model-source") || "").includes(name);
  }, basename(path), { timeout: 5 * 60 * 1000, polling: 100 }).then(() => true, () => false);
  await loadEnded(page, { timeout: 5 * 60 * 1000, polling: 100 });
  const facts = await page.$$eval("#model-facts li", (els) => els.map((e) => e.textContent));
  const load = await attr("data-load");
  const entry = { path, load, s: (Date.now() - t0) / 1000, source: await attr("data-model-source"), facts };
  (report.open_files ||= []).push(entry);
  if (!report.open_file) report.open_file = entry;
  log(`${what}: ${load} in ${entry.s.toFixed(1)} s from ${entry.source}; facts ${JSON.stringify(facts)}`);
  check(picked, `${what}: the page names the picked file as the model's source (${entry.source})`);
  check(load === "ready", `${what}: the model loaded from the picker (${load})`);
  check(facts.some((f) => archRe.test(f)) && facts.some((f) => formatRe.test(f)) && facts.some((f) => /^memory: needs/.test(f)),
    `${what}: its facts show the architecture, the formats and the memory check`);
  await page.selectOption("#lang", "python");
  if (await page.$("#fim")) await page.setChecked("#fim", false);
  await page.click("#reset");
  for (let i = 0; i < steps; i++) {
    await page.click("#step");
    const state = await waitRunEnd(generationTimeoutMs);
    check(state !== "error" && Number(await attr("data-steps")) === i + 1, `${what}: step ${i + 1} with the opened model (${state})`);
  }
  const code = await page.$eval("#code", (e) => e.textContent).catch(() => null);
  entry.code = code;
  if (steps > 1) log(`${what}: ${steps} masked Python steps wrote ${JSON.stringify(code)}`);
  await page.screenshot({ path: join(outDir, `${backend}-open-${basename(path).replace(/[^A-Za-z0-9.-]/g, "_")}.png`), fullPage: true });
}

// The second visit: the page again (a reload, same browser profile) with every
// request for the model refused, so it must reach "ready" from the browser's cache.
async function cachedVisit() {
  const gguf = [];
  await page.route("**/*.gguf", (route) => { gguf.push(route.request().url()); return route.abort(); });
  const t0 = Date.now();
  // The plain URL: the first visit's `?check=cpu` (WebGPU) is not repeated here.
  await page.goto(url);
  await loadEnded(page, { timeout: 5 * 60 * 1000, polling: 100 });
  report.ready_cached_visit_s = (Date.now() - t0) / 1000;
  report.model_source_cached_visit = await attr("data-model-source");
  report.cached_visit_model_requests = gguf.length;
  await page.unroute("**/*.gguf");
  const load = await attr("data-load");
  const detail = await page.$eval("#loading", (el) => el.textContent);
  log(`cached visit: ${load} in ${report.ready_cached_visit_s.toFixed(1)} s (first visit ${report.ready_first_visit_s.toFixed(1)} s): ${detail}`);
  check(report.model_source_first_visit === "the network", `first visit: the model came from the network (${report.model_source_first_visit})`);
  check(load === "ready" && report.model_source_cached_visit === "the browser's cache",
    `second visit: ready without the network, the model from the browser's cache (${load}, ${report.model_source_cached_visit}; ${gguf.length} model requests refused)`);
  await page.screenshot({ path: join(outDir, `${backend}-cached.png`) });
}

try {
  const t0 = Date.now();
  // On WebGPU the first visit asks the worker to compare its logits with the CPU
  // path's (gpu_agreement.rs: a CPU twin, a prompt and 4 greedy steps), so that
  // visit's time to ready includes the check; ESPALIER_BROWSER_CHECK_CPU=0 skips it.
  const checkCpu = backend === "webgpu" && process.env.ESPALIER_BROWSER_CHECK_CPU !== "0";
  await page.goto(checkCpu ? `${url}&check=cpu` : url);
  await page.waitForSelector("#progress", { timeout: 60_000 });
  await page.screenshot({ path: join(outDir, `${backend}-loading.png`) });
  await loadEnded(page, { timeout: 5 * 60 * 1000, polling: 250 });
  report.load_s = (Date.now() - t0) / 1000;
  report.load_main_thread = await blocks(0, await pageNow());
  report.longtask_api = await page.evaluate(() => window.__longtasksError || "ok");
  const load = await attr("data-load");
  const detail = await page.$eval("#loading", (el) => el.textContent);
  log(`load: ${load} in ${report.load_s.toFixed(1)} s: ${detail}`);
  log(`load main thread: ${fmtBlocks(report.load_main_thread)} (Long Tasks API: ${report.longtask_api})`);
  check(load === "ready", `model loaded (${detail})`);
  const got = await attr("data-backend");
  report.backend_detail = detail;
  check(got === backend, `backend is ${backend} (page says ${got})`);
  if (backend === "webgpu") gpuWeights(detail, checkCpu);
  report.ready_first_visit_s = report.load_s;
  report.model_source_first_visit = await attr("data-model-source");
  if (load === "ready") await cachedVisit();
  if (load === "ready") {
    const mode = process.env.ESPALIER_BROWSER_MODE || "mask";
    // SwiftShader runs WebGPU on the CPU at ~19 s per token here: the WebGPU run
    // writes the Python function only unless ESPALIER_BROWSER_LANGS_WEBGPU says more.
    const langs = (process.env[`ESPALIER_BROWSER_LANGS_${backend.toUpperCase()}`] ||
      (backend === "webgpu" ? "python" : "python slua go fim names")).split(/\s+/).filter(Boolean);
    report.langs = langs;
    if (langs.includes("python")) {
      await generate("python", mode);
      await backAndForward();
      if (backend === "webgpu") await gpuWork();
      if (backend === "cpu" || process.env.ESPALIER_BROWSER_RESUME_CHECKS) await stopCheck();
    }
    for (const lang of ["slua", "go", "fim"]) if (langs.includes(lang)) await generate(lang, mode);
    if (langs.includes("names")) await namesRun();
    log(`main-thread tasks while generating, CPU time from a trace: ${JSON.stringify(report.main_thread_cpu)}`);
    if (backend === "cpu" || process.env.ESPALIER_BROWSER_OPEN_FILE) await openFile();
  }
} catch (e) {
  failures.push(`exception: ${e.message}`);
  log("exception:", e.stack);
  try { await page.screenshot({ path: join(outDir, `${backend}-failure.png`), fullPage: true }); } catch {}
} finally {
  // Every main-thread block of the run, [start, duration] in page milliseconds.
  report.longtasks = await page.evaluate(() => (window.__longtasks || []).map(([s, d]) => [Math.round(s), Math.round(d)])).catch(() => []);
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
// The longest main-thread task while generating (from the click to the last token)
// over all the runs: the model runs in the worker, so the target is none over 50 ms
// (the Long Tasks API reports only tasks over 50 ms: 0 means none).
const genMax = Object.values(report.runs).flatMap((r) => [r.main_thread?.until_first_token?.max_ms, r.main_thread?.after_first_token?.max_ms]).filter(Number.isFinite);
if (genMax.length) {
  report.longest_main_thread_task_during_generation_ms = Math.max(...genMax);
  // The issue's target: no main-thread task over 50 ms while generating (the model runs
  // in the worker; the page redraws once per frame, only what changed). Since the
  // module's constructors run once (web/src/constructors.rs; before, every call from
  // JavaScript re-ran them: 1,606 ms blocks) the tasks that remain over 50 ms compute
  // 0-20 ms and wait for a core the rest (the trace below: on this 2-core machine at
  // load 5-12 they last 50-1,015 ms). So the wall-clock figure is reported, and enforced
  // only when ESPALIER_BROWSER_MAX_TASK_MS is set; the CPU figure is enforced.
  const limit = Number(process.env.ESPALIER_BROWSER_MAX_TASK_MS || "NaN");
  const longest = report.longest_main_thread_task_during_generation_ms;
  if (Number.isFinite(limit)) {
    check(longest <= limit, `no main-thread task over ${limit} ms while generating (longest ${longest} ms)`);
  } else {
    log(`longest main-thread task while generating: ${longest} ms (target 50 ms${longest > 50 ? ": NOT MET" : ""}; enforce with ESPALIER_BROWSER_MAX_TASK_MS)`);
  }
}
// The same tasks' CPU time (main-thread-cpu.mjs): what the page computes on its main
// thread, independent of how long the thread waited for a core on a loaded machine.
// Enforced by default (ESPALIER_BROWSER_MAX_TASK_CPU_MS, default 50).
if (report.main_thread_cpu) {
  const gens = Object.values(report.main_thread_cpu);
  const complete = gens.every((g) => g && Number.isFinite(g.longest_cpu_ms));
  const limit = Number(process.env.ESPALIER_BROWSER_MAX_TASK_CPU_MS || "50");
  if (!gens.length || !complete) {
    check(false, `main-thread CPU time per task: no data from the trace (${JSON.stringify(report.main_thread_cpu)})`);
  } else {
    const cpu = Math.max(...gens.map((g) => g.longest_cpu_ms));
    const waited = gens.flatMap((g) => g.over_50_wall);
    report.longest_main_thread_task_cpu_during_generation_ms = cpu;
    check(cpu <= limit,
      `no main-thread task computing over ${limit} ms while generating (longest ${cpu} ms of CPU; ` +
      `tasks over 50 ms of wall clock, [wall, cpu] ms: ${JSON.stringify(waited)})`);
  }
}
report.failures = failures;
writeFileSync(join(outDir, `summary-${backend}.json`), JSON.stringify(report, null, 2) + "\n");
if (failures.length) {
  log(`${failures.length} check(s) failed:\n  - ${failures.join("\n  - ")}`);
  process.exit(1);
}
log("all checks passed");
