//! For a language that is translated before it runs, the translation beside the
//! generated code (sLua: the slua crate's checker builds the AST, its translator
//! writes Lua 5.4), from the registry ([`espalier_decode::LangSpec::translation`]).

use espalier_decode::Lang;
use yew::prelude::*;

/// The translation panel: the translation once the program is complete (nothing for
/// a language that runs as it is).
pub fn translation(lang: Lang, code: &str, finished: bool) -> Html {
    let Some(title) = lang.translation_label() else { return html! {} };
    if code.is_empty() {
        return html! {};
    }
    let (class, text) = match lang.translation(code) {
        None => return html! {},
        Some(Ok(lua)) => ("plain", lua),
        Some(Err(why)) if finished => ("plain error", why),
        Some(Err(_)) => ("plain muted", "(the translation appears when the program is complete)".to_owned()),
    };
    html! {
        <>
            <h2>{title}</h2>
            <pre id="lua" class={class}>{text}</pre>
        </>
    }
}
