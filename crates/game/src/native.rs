//! The native host: real Lua 5.4 through mlua (vendored). It creates the state,
//! runs the rules ([`crate::RULES`]) and calls the game they return; everything the
//! game does, budgets included, is the rules' Lua code, the same code the browser
//! runs in wasmoon.

use std::time::{Duration, Instant};

use mlua::{Function, Lua, LuaOptions, StdLib, Table};

use crate::status::{parse, EngineError, Loaded};
use crate::{seed53, RULES};
use espalier_slua::translate::PRELUDE;

/// Memory one game's Lua state may hold (rules, scripts and their data).
pub const MEMORY_LIMIT: usize = 64 << 20;

/// A game: a Lua state holding the rules, the world and the loaded scripts.
pub struct Game {
    lua: Lua,
    g: Table,
    started: bool,
}

fn host(e: mlua::Error) -> EngineError {
    let m = e.to_string();
    if m.contains("not enough memory") {
        EngineError::Memory(format!("the Lua state ran out of memory: {m}"))
    } else {
        EngineError::Host(m)
    }
}

impl Game {
    /// A random level (size, walls, 4-8 actors) from `seed` (its low 53 bits).
    pub fn new(seed: u64) -> Result<Game, EngineError> {
        // SAFETY: the debug library is unsafe only in the hands of a script; the
        // rules keep `debug.sethook` for the budgets and scripts run in an
        // environment without `debug` (see lua/dungeon.lua).
        let lua = unsafe {
            Lua::unsafe_new_with(StdLib::ALL_SAFE | StdLib::DEBUG, LuaOptions::default())
        };
        let m: Table = lua.load(RULES).set_name("=dungeon.lua").eval().map_err(host)?;
        lua.set_memory_limit(MEMORY_LIMIT).map_err(host)?;
        let start = Instant::now();
        let now = lua
            .create_function(move |_, ()| Ok(start.elapsed().as_secs_f64() * 1000.0))
            .map_err(host)?;
        let new: Function = m.get("new").map_err(host)?;
        let g: Table = new.call((seed53(seed) as i64, PRELUDE, now)).map_err(host)?;
        Ok(Game { lua, g, started: false })
    }

    fn call(
        &self,
        entry: &str,
        arg: impl mlua::IntoLuaMulti,
    ) -> Result<Option<Loaded>, EngineError> {
        let f: Function = self.g.get(entry).map_err(host)?;
        let status: String = f.call(arg).map_err(host)?;
        parse(&status)
    }

    /// Loads a translated script: an effect becomes callable as `Name(actor, data)`.
    pub fn load(&mut self, lua_source: &str) -> Result<Loaded, EngineError> {
        self.set_time_limit(Duration::from_secs(20))?;
        let src = self.lua.create_string(lua_source).map_err(host)?;
        self.call("load", src)?.ok_or_else(|| EngineError::Host("load answered no script".into()))
    }

    /// Sets the wall-clock limit of the calls that follow, from now.
    pub fn set_time_limit(&mut self, limit: Duration) -> Result<(), EngineError> {
        let f: Function = self.g.get("set_time_limit").map_err(host)?;
        f.call::<()>(limit.as_secs_f64() * 1000.0).map_err(host)
    }

    /// Puts every loaded effect on a random actor (once; later calls do nothing).
    pub fn start(&mut self) -> Result<(), EngineError> {
        if !self.started {
            self.started = true;
            self.call("start", ())?;
        }
        Ok(())
    }

    /// Plays one turn: actors use random talents (or attack and wander), effects tick.
    pub fn turn(&mut self) -> Result<(), EngineError> {
        self.start()?;
        self.call("turn", ()).map(|_| ())
    }

    /// Starts the game and plays `turns` turns within `time_limit`; stops at the first
    /// error.
    pub fn run(&mut self, turns: usize, time_limit: Duration) -> Result<(), EngineError> {
        self.set_time_limit(time_limit)?;
        self.start()?;
        for _ in 0..turns {
            self.turn()?;
        }
        Ok(())
    }

    /// The log: every hook call, HP change and random draw, and the lines scripts wrote.
    pub fn log(&self) -> Vec<String> {
        self.log_from(0)
    }

    /// The log lines after the first `k`.
    pub fn log_from(&self, k: usize) -> Vec<String> {
        let text = self.text("log_text", k as f64);
        if text.is_empty() {
            Vec::new()
        } else {
            text.split('\n').map(str::to_string).collect()
        }
    }

    /// The actors and descriptions, one tab-separated line each (see lua/dungeon.lua).
    pub fn state_text(&self) -> String {
        self.text("state_text", ())
    }

    fn text(&self, entry: &str, arg: impl mlua::IntoLuaMulti) -> String {
        self.g
            .get::<Function>(entry)
            .and_then(|f| f.call::<String>(arg))
            .unwrap_or_else(|e| format!("(the log could not be read: {e})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TALENT: &str = "local __hooks = {}\n__hooks.Do = function(user, target)\n  BODY\nend\n__hooks.GetDescription = function(user) return \"t\" end\nreturn { kind = \"talent\", name = \"T\", hooks = __hooks }\n";

    fn run(body: &str) -> Result<(), EngineError> {
        let mut g = Game::new(3)?;
        g.load(&TALENT.replace("BODY", body))?;
        g.run(20, Duration::from_secs(10))
    }

    #[test]
    fn well_typed_calls_run_and_lua_errors_are_reported() {
        run("Damage(user, 0/0); WithActorAt(MakeCoord(-5, 99), function(a) a:Heal(1) end); Repeat(1e9, function(i) end)").unwrap();
        let err = run("local x = nil; x.y = 1").unwrap_err();
        assert!(matches!(err, EngineError::Runtime(_)), "{err}");
        assert!(err.to_string().contains("T.Do"), "{err}");
    }

    #[test]
    fn runaway_scripts_hit_a_limit() {
        let err = run("while true do end").unwrap_err();
        assert!(matches!(err, EngineError::Budget(_)), "{err}");
        let mut g = Game::new(1).unwrap();
        g.load(&TALENT.replace("BODY", "while true do end")).unwrap();
        let err = g.run(5, Duration::from_millis(1)).unwrap_err();
        assert!(err.is_limit(), "{err}");
    }

    #[test]
    fn the_same_seed_gives_the_same_log_and_another_seed_another() {
        let play = |seed| {
            let mut g = Game::new(seed).unwrap();
            g.load(&TALENT.replace("BODY", "Damage(user, Random(1, 3))")).unwrap();
            g.run(30, Duration::from_secs(10)).unwrap();
            g.log()
        };
        let a = play(5);
        assert!(
            a.iter().any(|l| l.starts_with("hook T.Do")) && a.iter().any(|l| l.starts_with("hp ")),
            "{a:?}"
        );
        assert_eq!(a, play(5));
        assert_ne!(a, play(6));
    }
}
