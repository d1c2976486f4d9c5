//! The code so far as token chips, coloured by how each token came about (sampled,
//! forced by the constraint, re-sampled after a rejection, healed); tokens chosen
//! under the wrap-up's finishing mask are underlined.

use std::collections::BTreeMap;

use espalier_decode::{How, StepTrace};
use yew::prelude::*;

use super::candidates::token;

/// The CSS class (and legend name) of a token's origin.
pub fn how_class(how: How) -> &'static str {
    match how {
        How::Sampled => "sampled",
        How::Forced => "forced",
        How::Resampled => "resampled",
        How::Healed => "healed",
    }
}

/// One chip per step; a newline token also breaks the line.
pub fn chips(steps: &[StepTrace], token_bytes: &BTreeMap<u32, Vec<u8>>) -> Html {
    let legend = [How::Sampled, How::Forced, How::Resampled, How::Healed];
    html! {
        <>
            <div class="legend">
                { for legend.iter().map(|h| html!{ <span class={classes!("chip", how_class(*h))}>{how_class(*h)}</span> }) }
                <span class="chip sampled wrap" title="chosen under the wrap-up's finishing mask">{"wrapping up"}</span>
            </div>
            <div id="chips" class="chips">
                { for steps.iter().map(|s| {
                    let title = format!("step {} · token {} · {}{}{}", s.step, s.chosen, how_class(s.how),
                        s.forced_prefix.as_ref().map(|p| format!(" · forced prefix {p:?}")).unwrap_or_default(),
                        if s.wrap_up { " · wrapping up (finishing mask)" } else { "" });
                    let class = classes!("chip", how_class(s.how), s.wrap_up.then_some("wrap"));
                    let chip = html!{ <span class={class} title={title}>{token(s.chosen, &s.chosen_text, token_bytes)}</span> };
                    if s.chosen_text.contains('\n') { html!{ <>{chip}<br/></> } } else { chip }
                }) }
            </div>
        </>
    }
}
