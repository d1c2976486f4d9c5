//! The top-k candidate tokens of the shown step: probability bars, the ones the
//! constraint masked struck out, the chosen one marked. Each token is drawn from its
//! raw bytes, legibly (`visible::pieces`: whitespace as marks, bytes that are not
//! UTF-8 on their own as hex).

use espalier_decode::StepTrace;
use yew::prelude::*;

use crate::visible::{label, pieces, visible};

/// A token drawn legibly from its bytes (or, without them, from its decoded text),
/// with its id and raw form in the tooltip.
pub fn token(id: u32, text: &str, bytes: Option<&[u8]>) -> Html {
    let Some(bytes) = bytes else {
        return html! { <span class="t">{visible(text)}</span> };
    };
    let title = format!("token {id} · {} bytes · {}", bytes.len(), label(bytes));
    html! {
        <span class="token" title={title}>
            { for pieces(bytes).iter().map(|p| html!{ <span class={p.class()}>{p.shown()}</span> }) }
        </span>
    }
}

/// The candidate table of `step` (empty before the first step).
pub fn candidates(step: Option<&StepTrace>, token_bytes: &super::TokenBytes) -> Html {
    let Some(step) = step else {
        return html! { <p class="muted">{"Press Step or Generate."}</p> };
    };
    let chosen_listed = step.candidates.iter().any(|c| c.id == step.chosen);
    html! {
        <table id="candidates" class="candidates">
            <tr><th>{"token"}</th><th>{"p"}</th><th>{""}</th></tr>
            { for step.candidates.iter().map(|c| {
                let masked = c.allowed == Some(false);
                let chosen = c.id == step.chosen;
                let refused = step.refused.contains(&c.id);
                let class = classes!(masked.then_some("masked"), chosen.then_some("chosen"), refused.then_some("refused"));
                let width = format!("width: {:.1}%", (c.prob * 100.0).clamp(0.0, 100.0));
                html!{
                    <tr class={class}>
                        <td class="tok">{token(c.id, &c.text, token_bytes.get(&c.id).map(|b| &b[..]))}</td>
                        <td class="p">{format!("{:.3}", c.prob)}</td>
                        <td class="bar"><span style={width}></span>
                            { if chosen { "◀ chosen" } else if refused { "refused" } else if masked { "masked" } else { "" } }
                        </td>
                    </tr>
                }
            }) }
            if !chosen_listed {
                <tr class="chosen"><td class="tok">{token(step.chosen, &step.chosen_text, token_bytes.get(&step.chosen).map(|b| &b[..]))}</td><td class="p">{"—"}</td><td class="bar">{"◀ chosen (outside the top list)"}</td></tr>
            }
        </table>
    }
}
