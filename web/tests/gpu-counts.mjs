// WebGPU work per token, counted in the page's model worker (issue 15): compute
// dispatches (kernel launches), queue submits, buffer uploads (writeBuffer) and
// GPU-to-CPU read-backs (mapAsync for reading), buffer creations and copies. These
// counts do not depend on the GPU, so SwiftShader gives the same as a real one.
//
// How: the WebGPU methods are wrapped on their prototypes inside every worker of the
// page (Playwright's Worker.evaluate), so calls that burn's wgpu makes through
// wasm-bindgen land in the counters; nothing in the app changes. Installed after the
// model has loaded, so the weights' uploads are not counted here (the load is not a
// token). A fresh run is stepped once (prefill + the first token), then `decodeSteps`
// more times; the second figure divided by `decodeSteps` is the per-token cost.

function install() {
  if (typeof GPUComputePassEncoder === "undefined") return "no WebGPU in this worker";
  if (self.__espalierGpuCounts) return "installed";
  const c = {};
  const zero = () => {
    for (const k of ["dispatches", "submits", "write_buffer_calls", "write_buffer_bytes", "map_read_calls",
      "map_read_bytes", "create_buffer_calls", "create_buffer_bytes", "copy_buffer_calls", "copy_buffer_bytes",
      "create_bind_group_calls", "create_pipeline_calls", "command_encoders"]) c[k] = 0;
  };
  zero();
  const wrap = (proto, name, count) => {
    const orig = proto[name];
    if (typeof orig !== "function") return;
    proto[name] = function (...args) {
      count.call(this, ...args);
      return orig.apply(this, args);
    };
  };
  const bytesOf = (data, dataOffset = 0, size) => {
    const per = data.BYTES_PER_ELEMENT || 1;
    return size !== undefined ? size * per : data.byteLength - dataOffset * per;
  };
  wrap(GPUComputePassEncoder.prototype, "dispatchWorkgroups", () => { c.dispatches++; });
  wrap(GPUComputePassEncoder.prototype, "dispatchWorkgroupsIndirect", () => { c.dispatches++; });
  wrap(GPUQueue.prototype, "submit", () => { c.submits++; });
  wrap(GPUQueue.prototype, "writeBuffer", (_buffer, _offset, data, dataOffset, size) => {
    c.write_buffer_calls++;
    c.write_buffer_bytes += bytesOf(data, dataOffset, size);
  });
  wrap(GPUBuffer.prototype, "mapAsync", function (mode, offset = 0, size) {
    if (mode & GPUMapMode.READ) {
      c.map_read_calls++;
      c.map_read_bytes += size !== undefined ? size : this.size - offset;
    }
  });
  wrap(GPUDevice.prototype, "createBuffer", (desc) => { c.create_buffer_calls++; c.create_buffer_bytes += desc.size; });
  wrap(GPUDevice.prototype, "createBindGroup", () => { c.create_bind_group_calls++; });
  wrap(GPUDevice.prototype, "createComputePipeline", () => { c.create_pipeline_calls++; });
  wrap(GPUDevice.prototype, "createCommandEncoder", () => { c.command_encoders++; });
  wrap(GPUCommandEncoder.prototype, "copyBufferToBuffer", (_s, _so, _d, _do, size) => {
    c.copy_buffer_calls++;
    c.copy_buffer_bytes += size;
  });
  self.__espalierGpuCounts = { counts: c, zero };
  return "installed";
}

const read = () => (self.__espalierGpuCounts ? { ...self.__espalierGpuCounts.counts } : null);
const zero = () => { self.__espalierGpuCounts?.zero(); };

async function everyWorker(page, fn) {
  const out = [];
  for (const w of page.workers()) out.push(await w.evaluate(fn).catch((e) => `error: ${e.message}`));
  return out;
}

// The counts summed over the page's workers (only the model's worker uses WebGPU).
async function sum(page) {
  const all = (await everyWorker(page, read)).filter((x) => x && typeof x === "object");
  if (!all.length) return null;
  const s = {};
  for (const c of all) for (const [k, v] of Object.entries(c)) s[k] = (s[k] || 0) + v;
  return s;
}

/// Steps a fresh run 2 + `decodeSteps` times (Python example already chosen by the
/// caller) and returns { installed, prefill_and_first_token, recording_step,
/// per_decode_token, decode_steps }: the prompt's pass with the first token, then the
/// first decoded token apart (it records the step that later tokens replay, unless the
/// cache kept a recording through the prompt: `crates/model/src/llama/gpu_replay.rs`),
/// then the mean of the next
/// `decodeSteps`.
export async function countGpuWork(page, { decodeSteps = 3, stepOnce, log }) {
  const installed = await everyWorker(page, install);
  log(`WebGPU counters: ${JSON.stringify(installed)}`);
  await page.click("#reset");
  await everyWorker(page, zero);
  await stepOnce();
  const first = await sum(page);
  await everyWorker(page, zero);
  await stepOnce();
  const recording = await sum(page);
  await everyWorker(page, zero);
  for (let i = 0; i < decodeSteps; i++) await stepOnce();
  const rest = await sum(page);
  if (!first || !recording || !rest) return { installed, error: "no worker had WebGPU counters" };
  const perToken = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, Math.round((v / decodeSteps) * 100) / 100]));
  return { installed, decode_steps: decodeSteps, prefill_and_first_token: first, recording_step: recording, per_decode_token: perToken };
}

// Greedy decoding as the model alone runs it (the worker's Bench message: no
// constraint, no visualizer, the argmax on the device), counted the same way. Started
// inside the model's worker (its own message handler, as if the page had sent it; its
// reply is caught on the way out), so the page needs no hook.
function startBench([prompt, tokens]) {
  if (self.name !== "espalier-engine" || typeof self.onmessage !== "function") return "not the engine's worker";
  if (!self.__espalierBenchHooked) {
    const post = self.postMessage.bind(self);
    self.postMessage = (m, ...rest) => {
      if (typeof m === "string" && m.startsWith('{"Bench"')) self.__espalierBench = JSON.parse(m).Bench;
      return post(m, ...rest);
    };
    self.__espalierBenchHooked = true;
  }
  self.__espalierBench = null;
  self.onmessage({ data: JSON.stringify({ Bench: { prompt, tokens } }) });
  return "started";
}

async function benchOnce(page, prompt, tokens, timeoutMs) {
  const engine = page.workers();
  const started = await Promise.all(engine.map((w) => w.evaluate(startBench, [prompt, tokens]).catch((e) => `error: ${e.message}`)));
  const w = engine[started.indexOf("started")];
  if (!w) throw new Error(`no worker took the Bench message: ${JSON.stringify(started)}`);
  const t0 = Date.now();
  for (;;) {
    const r = await w.evaluate(() => self.__espalierBench);
    if (r) {
      if (r.Err) throw new Error(`Bench failed: ${r.Err}`);
      return r.Ok;
    }
    if (Date.now() - t0 > timeoutMs) throw new Error(`Bench of ${tokens} tokens did not end in ${timeoutMs} ms`);
    await new Promise((ok) => setTimeout(ok, 200));
  }
}

/// Counts greedy decoding without the visualizer: `prompt` then 1 token, then `prompt`
/// then 1 + `decodeSteps` tokens; the difference over `decodeSteps` is one decoded
/// token (the prompt's pass and the first token cancel). Returns { per_decode_token,
/// decode_steps, generated_ids } (the ids of the longer run).
export async function countGreedyDecode(page, { prompt, decodeSteps = 3, timeoutMs, log }) {
  await everyWorker(page, install);
  await everyWorker(page, zero);
  const short = await benchOnce(page, prompt, 1, timeoutMs);
  const a = await sum(page);
  await everyWorker(page, zero);
  const long = await benchOnce(page, prompt, 1 + decodeSteps, timeoutMs);
  const b = await sum(page);
  // The bench used the model's cache: the page's generation must not go on from it.
  await page.click("#reset");
  if (!a || !b) return { error: "no worker had WebGPU counters" };
  const perToken = Object.fromEntries(Object.entries(b).map(([k, v]) => [k, Math.round(((v - a[k]) / decodeSteps) * 100) / 100]));
  log(`greedy bench: ${short.generated_ids.length} then ${long.generated_ids.length} tokens, decode ${long.decode_ms.toFixed(0)} ms`);
  return {
    decode_steps: decodeSteps,
    per_decode_token: perToken,
    generated_ids: long.generated_ids,
    prompt_ids: long.prompt_ids,
    decode_ms_per_token: Math.round((long.decode_ms - short.decode_ms) / decodeSteps),
  };
}
