// The page's main-thread tasks with their CPU time, from a Chromium trace (issue 15).
//
// Why: the Long Tasks API gives wall-clock durations only. On a loaded machine (here:
// 2 cores, load 5-12 from parallel builds) a main-thread task that computes for 8 ms
// can last 50-580 ms on the wall clock while its thread waits for a core: a trace of
// CPU generations (CDP Tracing, devtools.timeline + v8 + blink categories) showed every
// long task of the page's main thread using 2-20 ms of CPU (style, layout and paint of
// one frame, or a GC), the rest waiting, while the model's worker itself got ~28% of a
// core. The wall-clock figure measures the machine's load; the CPU figure measures
// what the page does, so the browser test enforces the CPU figure and reports both.
//
// How: Tracing.start with only the `toplevel` category (one ThreadControllerImpl::RunTask
// event per task of every thread, with `dur` = wall and `tdur` = thread CPU time, both in
// microseconds; cheap enough to leave on while generating). The page marks each
// generation with performance.mark("espalier-gen:<name>:start|end") (a blink.user_timing
// event in the same trace), which gives the window and names the page's main thread (the
// thread that emitted the marks).

const MARK = "espalier-gen:";

/** Starts the trace on `page` (a Playwright page of a Chromium context). */
export async function startCpuTrace(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("Tracing.start", {
    // Room for minutes of tasks (a SwiftShader generation runs ~15 min); the browser test
    // traces one generation at a time.
    traceConfig: { includedCategories: ["toplevel", "blink.user_timing"], recordMode: "recordUntilFull", traceBufferSizeInKb: 256 * 1024 },
    transferMode: "ReturnAsStream",
  });
  return cdp;
}

/** Marks the start or end of generation `name` on the page's main thread. */
export async function markGeneration(page, name, edge) {
  await page.evaluate((m) => performance.mark(m), `${MARK}${name}:${edge}`);
}

/** Stops the trace; returns, per marked generation, the main thread's tasks in it. */
export async function stopCpuTrace(cdp) {
  const done = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  await cdp.send("Tracing.end");
  const { stream } = await done;
  const chunks = [];
  for (;;) {
    const r = await cdp.send("IO.read", { handle: stream, size: 1 << 22 });
    chunks.push(r.base64Encoded ? Buffer.from(r.data, "base64") : Buffer.from(r.data));
    if (r.eof) break;
  }
  await cdp.send("IO.close", { handle: stream });
  await cdp.detach().catch(() => {});
  const trace = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  return tasksPerGeneration(Array.isArray(trace) ? trace : trace.traceEvents);
}

/** From trace events: { name: { tasks, longest_cpu_ms, longest_wall_ms, over_50_wall: [[wall, cpu]...] } }. */
export function tasksPerGeneration(events) {
  const marks = events.filter((e) => typeof e.name === "string" && e.name.startsWith(MARK) && (e.cat || "").includes("user_timing"));
  if (!marks.length) return { error: "no generation marks in the trace" };
  const { pid, tid } = marks[0];
  const windows = {};
  for (const m of marks) {
    const [name, edge] = m.name.slice(MARK.length).split(":");
    (windows[name] ||= {})[edge] = m.ts;
  }
  const tasks = events.filter((e) => e.ph === "X" && e.name === "ThreadControllerImpl::RunTask" && e.pid === pid && e.tid === tid);
  const out = {};
  for (const [name, w] of Object.entries(windows)) {
    if (w.start === undefined || w.end === undefined) continue;
    const inside = tasks.filter((e) => e.ts + e.dur > w.start && e.ts < w.end);
    const ms = (us) => Math.round((us || 0) / 100) / 10;
    out[name] = {
      tasks: inside.length,
      longest_cpu_ms: ms(Math.max(0, ...inside.map((e) => e.tdur || 0))),
      longest_wall_ms: ms(Math.max(0, ...inside.map((e) => e.dur))),
      cpu_ms: ms(inside.reduce((a, e) => a + (e.tdur || 0), 0)),
      // Every task over 50 ms of wall clock, [wall, cpu] in ms: how much of it computed.
      over_50_wall: inside.filter((e) => e.dur > 50_000).map((e) => [ms(e.dur), ms(e.tdur)]),
    };
  }
  return out;
}
