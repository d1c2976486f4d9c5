// The benchmark page's code: loads both engines on the same GGUF file and exposes
// window.bench for web/tests/bench.mjs. Espalier runs in its own Web Worker (the
// playground's wasm module, which starts its engine when it finds no window); wllama
// runs llama.cpp in its worker, single-threaded (the page is not cross-origin
// isolated, and n_threads is 1).
import { Wllama } from "./wllama/esm/index.js";

const MODEL = "models/SmolLM2-135M-Instruct.Q4_1.gguf";
const status = (t) => { document.getElementById("status").textContent = t; };

// Espalier: JSON messages of web/src/protocol.rs.
let espalierWorker = null;
const waiters = [];
function startEspalier() {
  espalierWorker = new Worker("./bench-worker.js", { type: "module" });
  espalierWorker.onmessage = (e) => {
    const m = JSON.parse(e.data);
    for (let i = 0; i < waiters.length; i++) {
      if (waiters[i].match(m)) { waiters.splice(i, 1)[0].resolve(m); return; }
    }
  };
  espalierWorker.onerror = (e) => { for (const w of waiters.splice(0)) w.reject(new Error(`espalier worker: ${e.message}`)); };
}
const next = (match) => new Promise((resolve, reject) => waiters.push({ match, resolve, reject }));

async function loadEspalier() {
  const alive = next((m) => m === "Alive");
  startEspalier();
  await alive;
  const loaded = next((m) => m && m.Loaded);
  espalierWorker.postMessage(JSON.stringify({ Load: { force_cpu: true } }));
  const r = (await loaded).Loaded;
  if (r.Err) throw new Error(`espalier: ${r.Err}`);
  return r.Ok;
}

async function espalier(prompt, tokens) {
  const done = next((m) => m && m.Bench);
  espalierWorker.postMessage(JSON.stringify({ Bench: { prompt, tokens } }));
  const r = (await done).Bench;
  if (r.Err) throw new Error(`espalier: ${r.Err}`);
  const b = r.Ok;
  return {
    prompt_ids: b.prompt_ids, generated_ids: b.generated_ids, text: b.text,
    prompt_n: b.prompt_ids.length, prefill_ms: b.prefill_ms,
    predicted_n: b.generated_ids.length, decode_ms: b.decode_ms, threads: 1,
  };
}

let wllama = null;
async function loadWllama() {
  wllama = new Wllama({ default: "./wllama/esm/wasm/wllama.wasm" }, { suppressNativeLog: true });
  await wllama.loadModelFromUrl(new URL(MODEL, location.href).href, {
    n_threads: 1, n_gpu_layers: 0, n_ctx: 2048, n_batch: 512, useCache: false,
  });
  return { multithread: wllama.isMultithread(), threads: wllama.getNumThreads() };
}

// wllama 3.8.1 takes the prompt as text only (a list of ids fails in its C++ with "type
// must be string, but is array"): it gets the same text, tokenized by llama.cpp with
// special tokens parsed; bench.mjs checks it counted as many prompt tokens as Espalier.
async function runWllama(prompt, tokens) {
  const r = await wllama.createCompletion({
    prompt, max_tokens: tokens, temperature: 0, top_k: 1, ignore_eos: true, cache_prompt: false,
  });
  const t = r.timings;
  if (!t) throw new Error("wllama returned no timings");
  return {
    text: r.choices?.[0]?.text ?? "", prompt_n: t.prompt_n, prefill_ms: t.prompt_ms,
    predicted_n: t.predicted_n, decode_ms: t.predicted_ms, threads: wllama.getNumThreads(),
  };
}

function show(round, engine, r) {
  const row = document.createElement("tr");
  const cells = [round, engine, r.prompt_n, (r.prompt_n / r.prefill_ms * 1000).toFixed(1),
    (r.predicted_n / r.decode_ms * 1000).toFixed(2), r.threads];
  for (const c of cells) { const td = document.createElement("td"); td.textContent = String(c); row.appendChild(td); }
  document.getElementById("results").appendChild(row);
  document.getElementById("texts").textContent += `${engine} round ${round}: ${JSON.stringify(r.text)}\n`;
}

window.bench = {
  async load() {
    status("loading Espalier…");
    const e = await loadEspalier();
    status("loading wllama…");
    const w = await loadWllama();
    status("ready");
    return { espalier: e, wllama: w };
  },
  async espalier(prompt, tokens, round) { const r = await espalier(prompt, tokens); show(round, "espalier", r); return r; },
  async wllama(prompt, tokens, round) { const r = await runWllama(prompt, tokens); show(round, "wllama", r); return r; },
  status,
};
window.benchReady = true;
