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

/// Steps a fresh run 1 + `decodeSteps` times (Python example already chosen by the
/// caller) and returns { installed, prefill_and_first_token, per_decode_token, decode_steps }.
export async function countGpuWork(page, { decodeSteps = 3, stepOnce, log }) {
  const installed = await everyWorker(page, install);
  log(`WebGPU counters: ${JSON.stringify(installed)}`);
  await page.click("#reset");
  await everyWorker(page, zero);
  await stepOnce();
  const first = await sum(page);
  await everyWorker(page, zero);
  for (let i = 0; i < decodeSteps; i++) await stepOnce();
  const rest = await sum(page);
  if (!first || !rest) return { installed, error: "no worker had WebGPU counters" };
  const perToken = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, Math.round((v / decodeSteps) * 100) / 100]));
  return { installed, decode_steps: decodeSteps, prefill_and_first_token: first, per_decode_token: perToken };
}
