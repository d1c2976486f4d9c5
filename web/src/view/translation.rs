//! For a language that is translated before it runs, the translation beside the
//! generated code (sLua: the slua crate's checker builds the AST, its translator
//! writes Lua 5.4), from the registry ([`espalier_decode::Evaluation::translation`]).

use espalier_decode::Lang;
use yew::prelude::*;

/// The translation panel: the translation of the finished program (`translated`,
/// made once when the run ends: the sLua checker takes ~0.1-1 s on the page's thread,
/// too long to run at every redraw), a placeholder while the program grows, nothing
/// for a language that runs as it is.
pub fn translation(
    lang: Lang,
    has_code: bool,
    translated: Option<&Result<String, String>>,
) -> Html {
    let Some(title) = lang.evaluation().translation_label() else { return html! {} };
    if !has_code {
        return html! {};
    }
    let (class, text) = match translated {
        Some(Ok(lua)) => ("plain", lua.clone()),
        Some(Err(why)) => ("plain error", why.clone()),
        None => {
            ("plain muted", "(the translation appears when the program is complete)".to_owned())
        }
    };
    html! {
        <>
            <h2>{title}</h2>
            <pre id="lua" class={class}>{text}</pre>
        </>
    }
}
