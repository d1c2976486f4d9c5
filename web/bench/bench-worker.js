// Espalier's engine for the benchmark page: the playground's wasm module started in a
// module worker (with no window its main() starts the engine's message handler).
import init from "./espalier-web.js";
init({ module_or_path: "./espalier-web_bg.wasm" });
