//! The dungeon game in the page: a finished sLua talent or effect is played in real
//! Lua 5.4 (wasmoon) with the same rules the native engine runs
//! (`espalier_game::RULES`). [`state`] is the panel's reducer (pure, tested
//! natively); `host` (wasmoon through js-sys) and `panel` (the Yew component) are
//! browser only.

pub mod state;

#[cfg(target_arch = "wasm32")]
mod host;
#[cfg(target_arch = "wasm32")]
mod panel;

#[cfg(target_arch = "wasm32")]
pub use panel::game_panel;
