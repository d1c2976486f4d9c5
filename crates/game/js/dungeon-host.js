// The wasmoon host of the dungeon game: real Lua 5.4 compiled to WebAssembly, in
// node (require) and in the browser (window.espalierDungeon). Like the native host
// (crates/game/src/native.rs) it only creates a Lua state (standard libraries, a
// 64 MiB memory limit), runs the rules (crates/game/lua/dungeon.lua) and calls the
// game they return; the rules, the random draws and the budgets are the Lua code
// both hosts share, so both write the same log.
(function (root, factory) {
  if (typeof module === 'object' && module.exports) {
    module.exports = factory();
  } else {
    root.espalierDungeon = factory();
  }
})(typeof globalThis !== 'undefined' ? globalThis : this, function () {
  'use strict';

  const MEMORY_LIMIT = 64 * 1024 * 1024;

  // Reads the one-string status of an entry: { ok, kind, name } or { ok: false, error, message }.
  function parseStatus(s) {
    const parts = String(s).split('\t');
    if (parts[0] === 'ok') {
      return parts.length >= 3 ? { ok: true, kind: parts[1], name: parts.slice(2).join('\t') } : { ok: true };
    }
    if (parts[0] === 'error' && parts.length >= 3) {
      return { ok: false, error: parts[1], message: parts.slice(2).join('\t') };
    }
    return { ok: false, error: 'host', message: 'unreadable status ' + JSON.stringify(s) };
  }

  function now() {
    return typeof performance !== 'undefined' ? performance.now() : Date.now();
  }

  class DungeonGame {
    constructor(engine, g) {
      this.engine = engine;
      this.g = g;
      this.started = false;
    }

    // factory: a wasmoon LuaFactory (one per page or process; engines are cheap).
    static async create(factory, rules, prelude, seed) {
      const engine = await factory.createEngine({
        openStandardLibs: true,
        injectObjects: false,
        enableProxy: false,
        traceAllocations: true,
      });
      try {
        const M = engine.doStringSync(rules);
        engine.global.setMemoryMax(MEMORY_LIMIT);
        const t0 = now();
        const g = M.new(seed, prelude, () => now() - t0);
        return new DungeonGame(engine, g);
      } catch (e) {
        engine.global.close();
        throw e;
      }
    }

    load(src) {
      this.g.set_time_limit(20000);
      return parseStatus(this.g.load(src));
    }

    setTimeLimit(ms) {
      this.g.set_time_limit(ms);
    }

    start() {
      if (this.started) return { ok: true };
      this.started = true;
      return parseStatus(this.g.start());
    }

    turn() {
      const s = this.start();
      if (!s.ok) return s;
      return parseStatus(this.g.turn());
    }

    // Starts and plays `turns` turns within `ms` milliseconds; stops at the first error.
    run(turns, ms) {
      this.setTimeLimit(ms);
      let s = this.start();
      for (let i = 0; i < turns && s.ok; i++) s = this.turn();
      return s;
    }

    stateText() {
      return String(this.g.state_text());
    }

    logLength() {
      return Number(this.g.log_len());
    }

    // The log lines after the first k.
    log(k) {
      const text = this.g.log_text(k || 0);
      return text === '' ? [] : text.split('\n');
    }

    // { actors: [{ name, hp, maxHp, team, shield, stun, x, y, player }], descriptions: [{ name, text }] }
    state() {
      const actors = [];
      const descriptions = [];
      for (const line of String(this.g.state_text()).split('\n')) {
        const f = line.split('\t');
        if (f[0] === 'describe') {
          descriptions.push({ name: f[1], text: f.slice(2).join('\t') });
        } else if (f.length >= 9) {
          actors.push({
            name: f[0], hp: Number(f[1]), maxHp: Number(f[2]), team: Number(f[3]), shield: Number(f[4]),
            stun: Number(f[5]), x: Number(f[6]), y: Number(f[7]), player: f[8] === '1',
          });
        }
      }
      return { actors, descriptions };
    }

    close() {
      this.engine.global.close();
    }
  }

  // In the browser: a LuaFactory over wasmoon's wasm given as bytes (built into the
  // page), served to wasmoon as a blob URL.
  function factoryFromBytes(wasmoon, bytes) {
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/wasm' }));
    return new wasmoon.LuaFactory(url);
  }

  return { DungeonGame, parseStatus, factoryFromBytes, MEMORY_LIMIT };
});
