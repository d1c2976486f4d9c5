//! The code so far as token chips, coloured by how each token came about (sampled,
//! forced by the constraint, re-sampled after a rejection, healed); tokens chosen
//! under the wrap-up's finishing mask are underlined.
//!
//! The chips are drawn in chunks of [`CHUNK`] steps, each a component whose props
//! compare by pointer: a new step redraws only the last chunk, so a step's redraw
//! does not grow with the length of the generation (a 160-step run drew ~800 nodes
//! per step before).

use std::rc::Rc;

use espalier_decode::{How, StepTrace};
use yew::prelude::*;

use super::candidates::token;

/// Steps per chunk of chips.
const CHUNK: usize = 32;

/// The CSS class (and legend name) of a token's origin.
pub fn how_class(how: How) -> &'static str {
    match how {
        How::Sampled => "sampled",
        How::Forced => "forced",
        How::Resampled => "resampled",
        How::Healed => "healed",
    }
}

/// One step's chip: the trace and its chosen token's bytes.
pub type Chip = (Rc<StepTrace>, Option<Rc<[u8]>>);

/// A chunk of chips.
#[derive(Properties)]
pub struct ChunkProps {
    /// The chunk's steps.
    pub chips: Vec<Chip>,
}

impl PartialEq for ChunkProps {
    fn eq(&self, other: &Self) -> bool {
        self.chips.len() == other.chips.len()
            && self.chips.iter().zip(&other.chips).all(|((a, x), (b, y))| {
                Rc::ptr_eq(a, b)
                    && match (x, y) {
                        (Some(x), Some(y)) => Rc::ptr_eq(x, y),
                        (None, None) => true,
                        _ => false,
                    }
            })
    }
}

/// Draws one chunk of chips; a newline token also breaks the line.
#[function_component(ChipChunk)]
fn chip_chunk(props: &ChunkProps) -> Html {
    html! {
        <>
            { for props.chips.iter().map(|(s, bytes)| {
                let title = format!("step {} · token {} · {}{}{}", s.step, s.chosen, how_class(s.how),
                    s.forced_prefix.as_ref().map(|p| format!(" · forced prefix {p:?}")).unwrap_or_default(),
                    if s.wrap_up { " · wrapping up (finishing mask)" } else { "" });
                let class = classes!("chip", how_class(s.how), s.wrap_up.then_some("wrap"));
                let chip = html!{ <span class={class} title={title}>{token(s.chosen, &s.chosen_text, bytes.as_deref())}</span> };
                if s.chosen_text.contains('\n') { html!{ <>{chip}<br/></> } } else { chip }
            }) }
        </>
    }
}

/// One chip per shown step, with the legend.
pub fn chips(shown: &[Chip]) -> Html {
    let legend = [How::Sampled, How::Forced, How::Resampled, How::Healed];
    html! {
        <>
            <div class="legend">
                { for legend.iter().map(|h| html!{ <span class={classes!("chip", how_class(*h))}>{how_class(*h)}</span> }) }
                <span class="chip sampled wrap" title="chosen under the wrap-up's finishing mask">{"wrapping up"}</span>
            </div>
            <div id="chips" class="chips">
                { for shown.chunks(CHUNK).enumerate().map(|(i, chunk)| html!{ <ChipChunk key={i} chips={chunk.to_vec()} /> }) }
            </div>
        </>
    }
}
