// The game panel in the browser test: after the sLua talent is generated, Play it in
// the page (wasmoon), Step once, Run to the last turn, read the page's log back and
// compare it line by line with the native engine (mlua) on the same script and seed
// (`espalier-game --seed S --turns T FILE.lua`, built when missing, or the binary
// ESPALIER_GAME_PLAY names). Screenshot
// <backend>-game.png. Called by browser.mjs.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const seed = process.env.ESPALIER_BROWSER_GAME_SEED || "1";

function nativePlayer() {
  if (process.env.ESPALIER_GAME_PLAY) return process.env.ESPALIER_GAME_PLAY;
  const target = process.env.CARGO_TARGET_DIR || "target";
  const bin = join(target, "release", "espalier-game");
  if (!existsSync(bin)) {
    const r = spawnSync("cargo", ["build", "--release", "-p", "espalier-game", "--bin", "espalier-game"], { stdio: "inherit" });
    if (r.status !== 0) throw new Error("cargo build -p espalier-game failed");
  }
  return bin;
}

export async function playGame(page, { lua, dir, outDir, backend, check, log }) {
  const phase = () => page.$eval("#game", (el) => el.dataset.phase);
  await page.waitForSelector("#game-play", { timeout: 30000 });
  await page.fill("#game-seed", seed);
  await page.dispatchEvent("#game-seed", "change");
  await page.click("#game-play");
  await page.waitForFunction(() => ["ready", "stopped"].includes(document.querySelector("#game")?.dataset.phase), null, { timeout: 120000 });
  check((await phase()) === "ready", `game: the talent loads in wasmoon (${await page.$eval("#game", (el) => el.textContent.slice(0, 300))})`);
  await page.click("#game-step");
  const afterStep = Number(await page.$eval("#game", (el) => el.dataset.turn));
  check(afterStep === 1, `game: Step plays one turn (turn ${afterStep})`);
  await page.click("#game-run");
  await page.waitForFunction(() => ["finished", "stopped"].includes(document.querySelector("#game")?.dataset.phase), null, { timeout: 120000 });
  const turns = Number(await page.$eval("#game", (el) => el.dataset.turn));
  const end = await phase();
  const stopped = await page.$eval("#game-stopped", (el) => el.textContent).catch(() => "");
  const speed = await page.$eval("#game-speed", (el) => el.textContent).catch(() => "");
  const pageLog = await page.$eval("#game-log-full", (el) => el.textContent);
  await page.screenshot({ path: join(outDir, `${backend}-game.png`), fullPage: true });
  log(`game: ${end} after ${turns} turns, ${pageLog.split("\n").length} log lines; ${speed} ${stopped}`);
  check(end === "finished" && turns >= 20, `game: played ${turns} turns in the page (${end}${stopped ? ": " + stopped : ""})`);
  const file = join(dir, "game.lua");
  writeFileSync(file, lua);
  const r = spawnSync(nativePlayer(), ["--seed", seed, "--turns", String(turns), file], { encoding: "utf8", maxBuffer: 64 << 20 });
  const nativeLines = (r.stdout || "").split("\n").filter((l) => l !== "");
  const outcome = nativeLines.pop();
  const pageLines = pageLog.split("\n");
  const k = pageLines.findIndex((l, i) => l !== nativeLines[i]);
  const agree = k === -1 && pageLines.length === nativeLines.length;
  check(outcome === "outcome: ok", `game: the native engine plays the same script (${outcome})`);
  check(agree, agree ? `game: the page's log equals the native engine's (${pageLines.length} lines, seed ${seed})`
    : `game: logs differ at line ${k}: page ${JSON.stringify(pageLines[k])} / native ${JSON.stringify(nativeLines[k])}`);
  return { seed: Number(seed), turns, phase: end, log_lines: pageLines.length, agrees_with_native: agree, speed, stopped };
}
