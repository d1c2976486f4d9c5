//! For sLua, the translated plain Lua beside the generated sLua (the slua crate's
//! checker builds the AST, its translator writes Lua 5.4).

use std::rc::Rc;

use espalier_slua::{check, translate, Api, Env};
use yew::prelude::*;

use crate::lang::Lang;

/// Translates a complete sLua script, or says where it stops being valid.
pub fn to_lua(code: &str) -> Result<String, String> {
    let api = Api::dungeon();
    let env = Rc::new(Env::new(api.clone(), Vec::new()));
    let script = check(env, code).map_err(|e| format!("not a complete sLua script yet (byte {}: expected /{}/)", e.offset, e.expected))?;
    Ok(translate::to_lua(&script, &api))
}

/// The translation panel (sLua only): the Lua once the script is complete.
pub fn translation(lang: Lang, code: &str, finished: bool) -> Html {
    if lang != Lang::SLua || code.is_empty() {
        return html! {};
    }
    let (class, text) = match to_lua(code) {
        Ok(lua) => ("plain", lua),
        Err(why) if finished => ("plain error", why),
        Err(_) => ("plain muted", "(the Lua translation appears when the script is complete)".to_owned()),
    };
    html! {
        <>
            <h2>{"Translated Lua"}</h2>
            <pre id="lua" class={class}>{text}</pre>
        </>
    }
}
