// The few browser calls the playground makes from both of its threads (the page and
// its Web Worker), written once here rather than through web-sys features: starting
// the worker, posting messages, timers, fetch, the Cache Storage API and SHA-256.
// wasm-bindgen copies this file to snippets/espalier-web-<hash>/js/host.js beside the
// app's glue (espalier-web.js), which the worker imports.

// The app's glue module, relative to this snippet (trunk: filehash = false).
const GLUE = new URL("../../../espalier-web.js", import.meta.url).href;
// The app's root (index.html, the glue, models/). The worker is started from a blob:
// URL, against which a relative path cannot be resolved, so every path the app fetches
// or caches is made absolute here, the same on both threads.
const ROOT = new URL("../../../", import.meta.url).href;
function absolute(url) {
  return new URL(url, ROOT).href;
}

export function inWorker() {
  return typeof window === "undefined";
}

// Starts the worker: a module worker that imports the glue and instantiates the same
// compiled WebAssembly module (sent with the first message; nothing is downloaded or
// compiled again). `onMessage(text)` gets every message, `onError(text)` a failure.
// `search`: the page's URL parameters as the worker sees them (its opt-in checks,
// `?check=cpu`; page_params.rs).
export function spawnWorker(module, onMessage, onError, search) {
  const source =
    `self.ESPALIER_SEARCH = ${JSON.stringify(search)};\n` +
    `self.onmessage = async (e) => {\n` +
    `  self.onmessage = null;\n` +
    `  try {\n` +
    `    const glue = await import(${JSON.stringify(GLUE)});\n` +
    `    await glue.default({ module_or_path: e.data });\n` +
    `  } catch (err) {\n` +
    `    self.postMessage(JSON.stringify({ Loaded: { Err: "the worker could not start: " + err } }));\n` +
    `  }\n` +
    `};\n`;
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module", name: "espalier-engine" });
  worker.onmessage = (e) => onMessage(String(e.data));
  // Handled here (the page reports it and offers to start again), so the browser
  // does not also raise it as an uncaught error of the page.
  worker.onerror = (e) => { e.preventDefault(); onError(`the worker failed: ${e.message || e}`); };
  worker.postMessage(module);
  return worker;
}

// Stops the worker at once (whatever it was doing); nothing more comes from it.
export function terminateWorker(worker) {
  worker.terminate();
}

// The page's URL parameters (`location.search`).
export function pageSearch() {
  return typeof location === "undefined" ? "" : String(location.search);
}

export function postToWorker(worker, text) {
  worker.postMessage(text);
}

// Sends a message with a File beside it (structured clone: the worker reads the file
// itself; nothing is uploaded anywhere).
export function postFileToWorker(worker, text, file) {
  worker.postMessage({ text, file });
}

// In the worker: messages from the page go to `onMessage(text, file)` (`file` is
// undefined but for postFileToWorker's messages).
export function listenToPage(onMessage) {
  self.onmessage = (e) => (typeof e.data === "string" ? onMessage(e.data, undefined) : onMessage(String(e.data.text), e.data.file));
}

// The first file a file input holds, or null.
export function pickedFile(input) {
  return (input && input.files && input.files[0]) || null;
}

// The name and size of a File.
export function fileName(file) {
  return String(file.name);
}
export function fileSize(file) {
  return Number(file.size);
}

// A promise of a File's bytes (a Uint8Array).
export async function readFile(file) {
  return new Uint8Array(await file.arrayBuffer());
}

export function postToPage(text) {
  self.postMessage(text);
}

// Resolves on the next turn of the event loop (a macrotask: in the worker this lets a
// Stop message in; on the page it lets the browser paint).
export function nextTurn() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// Resolves after the page could paint (the task after the next animation frame, or
// 100 ms without frames: a hidden tab runs none); in the worker, on the next turn.
export function afterPaint() {
  if (typeof requestAnimationFrame === "undefined" || inWorker()) return nextTurn();
  return new Promise((resolve) => {
    setTimeout(resolve, 100);
    requestAnimationFrame(() => setTimeout(resolve, 0));
  });
}

// Calls `callback` once, at the next animation frame (or after 50 ms without frames:
// a hidden tab runs none). The page redraws the worker's reports of one frame at once.
export function onNextFrame(callback) {
  let done = false;
  const run = () => { if (!done) { done = true; callback(); } };
  if (typeof requestAnimationFrame !== "undefined") requestAnimationFrame(run);
  setTimeout(run, 50);
}

export function nowMs() {
  return performance.now();
}

export function fetchUrl(url) {
  return fetch(absolute(url));
}

export function navigatorGpu() {
  return (typeof navigator !== "undefined" && navigator.gpu) || null;
}

// The Cache Storage API (absent outside secure contexts): the cached response for
// `url`, or null.
const CACHE = "espalier-models-v1";
export async function cacheMatch(url) {
  if (typeof caches === "undefined") return null;
  const cache = await caches.open(CACHE);
  return (await cache.match(absolute(url))) || null;
}

// Stores a copy of `bytes` as the response for `url`; resolves to "" or why not.
// `bytes` is a view of the wasm memory: copied before the first await (the memory may
// grow, and the view be detached, while this waits).
export async function cachePut(url, bytes) {
  if (typeof caches === "undefined") return "the Cache Storage API is not available (not a secure context)";
  const copy = bytes.slice();
  const cache = await caches.open(CACHE);
  await cache.put(absolute(url), new Response(copy, {
    headers: { "content-type": "application/octet-stream", "content-length": String(copy.length) },
  }));
  return "";
}

export async function cacheDelete(url) {
  if (typeof caches === "undefined") return false;
  return (await caches.open(CACHE)).delete(absolute(url));
}

// SHA-256 of `bytes` as lowercase hex (WebCrypto; copies the bytes when called).
export async function sha256Hex(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
