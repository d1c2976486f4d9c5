//! The browser's Lua: wasmoon (real Lua 5.4 compiled to WebAssembly) and the game's
//! JavaScript host (crates/game/js/dungeon-host.js), both built into the app: the
//! page evaluates wasmoon's bundle and the host once, hands wasmoon its wasm as a
//! blob, and drives the game through the host's `DungeonGame` (the same calls the
//! node differential test makes). Browser only.

use js_sys::{Function, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use espalier_game::{JS_HOST, RULES};
use espalier_slua::translate::PRELUDE;

/// wasmoon 1.16.0's browser bundle and its wasm (npm; `npm ci` installs them).
const WASMOON_JS: &str = include_str!("../../../node_modules/wasmoon/dist/index.js");
const WASMOON_WASM: &[u8] = include_bytes!("../../../node_modules/wasmoon/dist/glue.wasm");

fn err(e: JsValue) -> String {
    e.as_string()
        .or_else(|| Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string()))
        .unwrap_or_else(|| format!("{e:?}"))
}

fn get(obj: &JsValue, key: &str) -> Result<JsValue, String> {
    Reflect::get(obj, &key.into()).map_err(err)
}

fn call(obj: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let f: Function =
        get(obj, method)?.dyn_into().map_err(|_| format!("{method} is not a function"))?;
    let array = js_sys::Array::new();
    for a in args {
        array.push(a);
    }
    f.apply(obj, &array).map_err(err)
}

/// wasmoon's factory: one per panel (a factory compiles the wasm once; engines,
/// one per game, are cheap).
#[derive(Clone)]
pub struct Lua {
    factory: JsValue,
    host: JsValue,
}

impl Lua {
    /// Evaluates wasmoon and the host (once per page: they define `window.wasmoon`
    /// and `window.espalierDungeon`) and makes a factory over the built-in wasm.
    pub fn new() -> Result<Lua, String> {
        let global = js_sys::global();
        if get(&global, "espalierDungeon")?.is_undefined() {
            js_sys::eval(WASMOON_JS).map_err(err)?;
            js_sys::eval(JS_HOST).map_err(err)?;
        }
        let wasmoon = get(&global, "wasmoon")?;
        let host = get(&global, "espalierDungeon")?;
        let bytes = Uint8Array::from(WASMOON_WASM);
        let factory = call(&host, "factoryFromBytes", &[wasmoon, bytes.into()])?;
        Ok(Lua { factory, host })
    }

    /// A new game (a fresh Lua state with the rules) from `seed`.
    pub async fn game(&self, seed: u64) -> Result<Game, String> {
        let class = get(&self.host, "DungeonGame")?;
        let seed = espalier_game::seed53(seed) as f64;
        let promise = call(
            &class,
            "create",
            &[self.factory.clone(), RULES.into(), PRELUDE.into(), seed.into()],
        )?;
        let game = JsFuture::from(
            promise
                .dyn_into::<js_sys::Promise>()
                .map_err(|_| "create gave no promise".to_string())?,
        )
        .await
        .map_err(err)?;
        Ok(Game { obj: game })
    }
}

/// One game in wasmoon.
pub struct Game {
    obj: JsValue,
}

/// A call's outcome: `Err((kind, message))` when the game stopped.
pub type Status = Result<Option<(String, String)>, (String, String)>;

fn status(v: Result<JsValue, String>) -> Status {
    let v = v.map_err(|e| ("host".to_string(), e))?;
    let ok = get(&v, "ok").ok().and_then(|b| b.as_bool()).unwrap_or(false);
    let text = |k: &str| get(&v, k).ok().and_then(|s| s.as_string()).unwrap_or_default();
    if ok {
        Ok((!text("kind").is_empty()).then(|| (text("kind"), text("name"))))
    } else {
        Err((text("error"), text("message")))
    }
}

impl Game {
    /// Loads a translated script: Some((kind, name)).
    pub fn load(&self, lua: &str) -> Status {
        status(call(&self.obj, "load", &[lua.into()]))
    }

    /// Sets the wall-clock limit from now.
    pub fn set_time_limit(&self, ms: f64) {
        let _ = call(&self.obj, "setTimeLimit", &[ms.into()]);
    }

    /// Puts the effects on (once), then plays one turn.
    pub fn turn(&self) -> Status {
        status(call(&self.obj, "turn", &[]))
    }

    /// Puts the loaded effects on actors (once).
    pub fn start(&self) -> Status {
        status(call(&self.obj, "start", &[]))
    }

    /// Log lines after the first `k`.
    pub fn log_from(&self, k: usize) -> Vec<String> {
        let Ok(arr) = call(&self.obj, "log", &[(k as f64).into()]) else { return Vec::new() };
        js_sys::Array::from(&arr).iter().filter_map(|v| v.as_string()).collect()
    }

    /// The actors and descriptions (`state_text` of the rules).
    pub fn state_text(&self) -> String {
        call(&self.obj, "stateText", &[]).ok().and_then(|s| s.as_string()).unwrap_or_default()
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        let _ = call(&self.obj, "close", &[]);
    }
}
