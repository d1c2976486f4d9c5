//! The loading banner (progress bar, backend) and the run status line.

use yew::prelude::*;

use crate::app::{LoadState, RunState};

/// The model loading banner: a progress bar while reading the model (from the
/// network or the browser's cache), then which backend runs and where the model came
/// from; after a failure (of the load or of the worker itself), the error and a button
/// that starts a new worker and loads the default model again.
pub fn loading(
    load: &LoadState,
    backend: &str,
    model: &str,
    source: &str,
    on_restart: Callback<MouseEvent>,
) -> Html {
    match load {
        LoadState::Fetching(got, total, from_cache) => {
            let whence = if *from_cache { "from the browser's cache " } else { "" };
            let mb = |b: u64| b as f64 / 1e6;
            let (value, max, text) = match total {
                Some(t) if *t > 0 => {
                    (*got as f64, *t as f64, format!("{:.1} / {:.1} MB", mb(*got), mb(*t)))
                }
                _ => (0.0, 1.0, format!("{:.1} MB", mb(*got))),
            };
            html! {
                <section id="loading" class="loading">
                    <p>{"Loading the model (SmolLM2-135M-Instruct, Q4_1) "}{whence}{text}</p>
                    <progress id="progress" value={value.to_string()} max={max.to_string()} />
                </section>
            }
        }
        LoadState::Preparing(what) => html! {
            <section id="loading" class="loading"><p>{format!("Model read; {what}…")}</p><progress id="progress" /></section>
        },
        LoadState::Ready => html! {
            <section id="loading" class="loading ready">
                <p><strong id="backend">{backend}</strong>{" · "}{model}{" · model from "}<span id="model-source">{source}</span></p>
            </section>
        },
        LoadState::Failed(e) => html! {
            <section id="loading" class="loading failed">
                <p class="error" id="load-error">{e.clone()}</p>
                <button id="restart" onclick={on_restart}>{"Start again (load the default model)"}</button>
            </section>
        },
    }
}

/// One line saying what the generation is doing.
pub fn run_status(run: &RunState, cursor: usize, total: usize) -> Html {
    let text = match run {
        RunState::Idle => "idle".to_owned(),
        RunState::Running => format!("generating… step {total}"),
        RunState::Paused => format!("paused at step {cursor} of {total}"),
        RunState::Done(reason) => format!("done ({reason}); showing step {cursor} of {total}"),
        RunState::Failed(e) => format!("error: {e}"),
    };
    html! { <span id="run-status" class={classes!("status", matches!(run, RunState::Failed(_)).then_some("error"))}>{text}</span> }
}
