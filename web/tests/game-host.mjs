// The game's wasmoon host in Chromium, without the playground: loads wasmoon's
// browser bundle and crates/game/js/dungeon-host.js into a blank page the way the
// game panel does (bundle evaluated, wasm handed over as a blob URL), plays sLua
// scripts for T turns there, and compares the page's log line by line with the
// native engine (`espalier-game`, mlua) on the same scripts and seed. Writes
// <results>/game-host.json and game-host.png.
//
// Usage: node web/tests/game-host.mjs <results-dir> [--seed S] [--turns T] FILE.slua...
// Needs target/release/espalier-game (scripts/browser-test.sh builds it and runs this) and
// Debian chromium; exits 0 only when the logs agree.
import { chromium } from "playwright-core";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const args = process.argv.slice(2);
const outDir = args.shift();
let seed = "1", turns = "100";
const files = [];
while (args.length) {
  const a = args.shift();
  if (a === "--seed") seed = args.shift();
  else if (a === "--turns") turns = args.shift();
  else files.push(a);
}
if (!outDir || files.length === 0) {
  console.error("usage: game-host.mjs <results-dir> [--seed S] [--turns T] FILE.slua...");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const bin = process.env.ESPALIER_GAME_PLAY || join(process.env.CARGO_TARGET_DIR || "target", "release", "espalier-game");
const emitted = JSON.parse(spawnSync(bin, ["--emit-lua", ...files], { encoding: "utf8" }).stdout);
const native = spawnSync(bin, ["--seed", seed, "--turns", turns, ...files], { encoding: "utf8", maxBuffer: 64 << 20 });
const nativeLines = native.stdout.split("\n").filter((l) => l !== "");
const nativeOutcome = nativeLines.pop();
const t0 = Date.now();
const nativeAgain = spawnSync(bin, ["--seed", seed, "--turns", turns, ...files], { encoding: "utf8", maxBuffer: 64 << 20 });
const nativeMs = Date.now() - t0; // process start and translation included

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
// A page at an http address (wasmoon resolves its bundle's URL against the page's).
await page.route("http://game.test/", (r) => r.fulfill({ contentType: "text/html",
  body: "<!DOCTYPE html><html><body><h1>dungeon game: wasmoon host</h1><pre id='log'></pre></body></html>" }));
await page.goto("http://game.test/");
await page.evaluate(readFileSync("node_modules/wasmoon/dist/index.js", "utf8"));
await page.evaluate(readFileSync("crates/game/js/dungeon-host.js", "utf8"));
const wasm = [...readFileSync("node_modules/wasmoon/dist/glue.wasm")];
const result = await page.evaluate(async ({ wasm, rules, prelude, sources, seed, turns }) => {
  const host = window.espalierDungeon;
  const factory = host.factoryFromBytes(window.wasmoon, new Uint8Array(wasm));
  const game = await host.DungeonGame.create(factory, rules, prelude, seed);
  let s = { ok: true };
  for (const src of sources) { s = game.load(src); if (!s.ok) break; }
  const t = performance.now();
  if (s.ok) s = game.run(turns, 20000);
  const ms = performance.now() - t;
  const log = game.log(0);
  document.getElementById("log").textContent = log.filter((l) => !l.startsWith("rng")).slice(-60).join("\n");
  game.close();
  return { outcome: s.ok ? "ok" : s.error + ": " + s.message, ms, log, ua: navigator.userAgent };
}, { wasm, rules: readFileSync("crates/game/lua/dungeon.lua", "utf8"), prelude: emitted.prelude, sources: emitted.sources, seed: Number(seed), turns: Number(turns) });
await page.screenshot({ path: join(outDir, "game-host.png"), fullPage: false });
await browser.close();

const k = result.log.findIndex((l, i) => l !== nativeLines[i]);
const agree = k === -1 && result.log.length === nativeLines.length && nativeOutcome === `outcome: ${result.outcome}`;
const summary = {
  files, seed: Number(seed), turns: Number(turns), page_outcome: result.outcome, native_outcome: nativeOutcome,
  log_lines: result.log.length, agree, first_difference: agree ? null : { line: k, page: result.log[k], native: nativeLines[k] },
  page_ms: Math.round(result.ms), page_turns_per_s: Math.round(Number(turns) * 1000 / result.ms),
  native_process_ms: nativeMs, browser: result.ua,
};
writeFileSync(join(outDir, "game-host.json"), JSON.stringify(summary, null, 2) + "\n");
console.log(JSON.stringify(summary));
process.exit(agree && nativeAgain.status === 0 ? 0 : 1);
