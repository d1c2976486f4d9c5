//! espalier-game: the dungeon game that sLua scripts play in.
//!
//! The rules, the seeded random generator, the sandbox and the budgets are Lua 5.4
//! code ([`RULES`], `lua/dungeon.lua`), so the two hosts that run them, real Lua
//! through mlua natively ([`native::Game`]) and wasmoon (Lua 5.4 in WebAssembly) in
//! the browser and under node (`js/dungeon-host.js`), run identical code and write
//! identical turn logs. A host creates a Lua state with the standard libraries and a
//! memory limit, runs [`RULES`], and calls the game it returns (see the top of
//! `lua/dungeon.lua`). The language crate (`espalier-slua`) needs no Lua VM to check
//! or translate a script; this crate is where scripts run.

/// The game's rules: a Lua 5.4 chunk returning the module `M` with `M.new(seed,
/// prelude, now)`.
pub const RULES: &str = include_str!("../lua/dungeon.lua");

/// The wasmoon host (node and the browser), shipped beside the rules.
pub const JS_HOST: &str = include_str!("../js/dungeon-host.js");

/// Seeds are whole numbers below 2^53, so JavaScript numbers carry them exactly.
pub fn seed53(seed: u64) -> u64 {
    seed & ((1u64 << 53) - 1)
}

pub mod status;
pub use status::{EngineError, Loaded};

#[cfg(not(target_arch = "wasm32"))]
pub mod native;
#[cfg(not(target_arch = "wasm32"))]
pub use native::Game;
#[cfg(not(target_arch = "wasm32"))]
pub mod fuzz;
