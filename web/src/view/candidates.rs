//! The top-k candidate tokens of the shown step: probability bars, the ones the
//! constraint masked struck out, the chosen one marked.

use espalier_decode::StepTrace;
use yew::prelude::*;

use super::visible;

/// The candidate table of `step` (empty before the first step).
pub fn candidates(step: Option<&StepTrace>) -> Html {
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
                        <td class="tok">{visible(&c.text)}</td>
                        <td class="p">{format!("{:.3}", c.prob)}</td>
                        <td class="bar"><span style={width}></span>
                            { if chosen { "◀ chosen" } else if refused { "refused" } else if masked { "masked" } else { "" } }
                        </td>
                    </tr>
                }
            }) }
            if !chosen_listed {
                <tr class="chosen"><td class="tok">{visible(&step.chosen_text)}</td><td class="p">{"—"}</td><td class="bar">{"◀ chosen (outside the top list)"}</td></tr>
            }
        </table>
    }
}
