// Plays the differential test's cases in wasmoon: node run-cases.js CASES.json OUT.jsonl
// CASES.json = { rules, prelude, turns, time_limit_ms, cases: [{ seed, sources: [lua] }] }.
// Writes one JSON line per case { i, outcome: "ok" | "KIND: message", log: "lines\n..." }
// and prints a summary line { cases, turns, seconds, turns_per_s, errors } on stdout.
'use strict';
const fs = require('fs');
const path = require('path');
const { LuaFactory } = require(path.join(process.cwd(), 'node_modules', 'wasmoon'));
const { DungeonGame } = require('./dungeon-host.js');

async function main() {
  const [casesPath, outPath] = process.argv.slice(2);
  const input = JSON.parse(fs.readFileSync(casesPath, 'utf8'));
  const factory = new LuaFactory();
  const out = fs.openSync(outPath, 'w');
  let playMs = 0;
  let turns = 0;
  let errors = 0;
  for (let i = 0; i < input.cases.length; i++) {
    const c = input.cases[i];
    const game = await DungeonGame.create(factory, input.rules, input.prelude, c.seed);
    const t0 = performance.now();
    let s = { ok: true };
    for (const src of c.sources) {
      s = game.load(src);
      if (!s.ok) break;
    }
    if (s.ok) {
      game.setTimeLimit(input.time_limit_ms);
      s = game.start();
      for (let t = 0; t < input.turns && s.ok; t++) {
        s = game.turn();
        if (s.ok) turns++;
      }
    }
    playMs += performance.now() - t0;
    if (!s.ok) errors++;
    const outcome = s.ok ? 'ok' : s.error + ': ' + s.message;
    fs.writeSync(out, JSON.stringify({ i, outcome, log: game.log(0).join('\n') }) + '\n');
    game.close();
  }
  fs.closeSync(out);
  const seconds = playMs / 1000;
  console.log(JSON.stringify({ cases: input.cases.length, turns, seconds, turns_per_s: turns / seconds, errors }));
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
