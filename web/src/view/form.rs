//! The request form: language, mode, fill in the middle, sampling settings, examples
//! and the prompt (or the prefix and suffix boxes). A component with props compared
//! by value, so the steps of a running generation (which change none of them) do not
//! redraw it.

use espalier_decode::Lang;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::{app::FormMsg, examples, settings::Settings};

/// What the form shows.
#[derive(Properties, PartialEq)]
pub struct FormProps {
    /// The language picked.
    pub lang: Lang,
    /// Mode and sampling settings.
    pub settings: Settings,
    /// The request (a task for the chat).
    pub prompt: AttrValue,
    /// Fill in the middle instead (languages that can).
    pub fim: bool,
    /// The code before and after the cursor.
    pub fim_prefix: AttrValue,
    pub fim_suffix: AttrValue,
    /// Whether a generation or the load is running (the form is disabled).
    pub busy: bool,
    /// The page's reducer of form edits (one callback made once, so the props stay
    /// equal).
    pub send: Callback<FormMsg>,
}

/// The form.
#[function_component(Form)]
pub fn form(p: &FormProps) -> Html {
    let fim_on = p.fim && p.lang.fills_in_the_middle();
    let send = &p.send;
    let on_prompt = send.reform(|e: InputEvent| {
        FormMsg::SetPrompt(e.target_unchecked_into::<HtmlTextAreaElement>().value())
    });
    html! {
        <>
            { choices(p, fim_on) }
            <div class="examples">
                <span>{"Examples: "}</span>
                { for examples::for_lang(p.lang, fim_on).into_iter().map(|e| {
                    let title = e.title.clone();
                    html!{ <button class="example" disabled={p.busy} onclick={send.reform(move |_: MouseEvent| FormMsg::PickExample(e.clone()))}>{title}</button> }
                }) }
            </div>
            if fim_on {
                { super::fim_inputs(&p.fim_prefix, &p.fim_suffix, p.busy, send.reform(FormMsg::SetFimPrefix), send.reform(FormMsg::SetFimSuffix)) }
            } else {
                <textarea id="prompt" rows="3" value={p.prompt.clone()} oninput={on_prompt} disabled={p.busy} />
            }
        </>
    }
}

/// The row of choices: language, mode, fill in the middle, the numbers, the full
/// prompt.
fn choices(p: &FormProps, fim_on: bool) -> Html {
    let (busy, send, s) = (p.busy, &p.send, &p.settings);
    let select = |f: fn(String) -> FormMsg| {
        send.reform(move |e: Event| f(e.target_unchecked_into::<HtmlSelectElement>().value()))
    };
    let checkbox = |f: fn(bool) -> FormMsg| {
        send.reform(move |e: Event| f(e.target_unchecked_into::<HtmlInputElement>().checked()))
    };
    let number = |id, label, value: String, step| number_input(id, label, value, step, p);
    html! {
        <div class="row">
            <label>{"Language "}
                <select id="lang" onchange={select(FormMsg::SetLang)} disabled={busy}>
                    { for Lang::all().map(|l| html!{ <option value={l.name()} selected={l == p.lang}>{l.label()}</option> }) }
                </select>
            </label>
            <label>{"Mode "}
                <select id="mode" onchange={select(FormMsg::SetMode)} disabled={busy}>
                    { for p.lang.modes().iter().map(|m| html!{ <option value={m.name()} selected={*m == s.mode}>{m.name()}</option> }) }
                </select>
            </label>
            if p.lang.fills_in_the_middle() {
                <label title="Write the code between a prefix and a suffix: the middle must join both">
                    <input id="fim" type="checkbox" checked={p.fim} disabled={busy} onchange={checkbox(FormMsg::SetFim)} />
                    {" fill in the middle"}
                </label>
            }
            { number("temperature", "temperature", s.temperature.to_string(), "0.1") }
            { number("top-k", "top-k", s.top_k.to_string(), "1") }
            { number("top-p", "top-p", s.top_p.to_string(), "0.05") }
            { number("seed", "seed", s.seed.to_string(), "1") }
            { number("max-tokens", "max tokens", s.max_tokens.to_string(), "1") }
            if p.lang.has_finishing_mask() {
                <span title="When this many tokens of the budget are left, only tokens that lead towards the shortest complete program stay allowed (0 = off)">
                    { number("wrap-up", "wrap up at", s.wrap_up.to_string(), "1") }
                </span>
            }
            if p.lang.prompting().has_full_instruction() && !fim_on {
                <label title="Prompt with the language's full instruction (sLua: the whole language document and game API, about 3k tokens: slow on the CPU backend)">
                    <input id="full-prompt" type="checkbox" checked={s.full_prompt} disabled={busy} onchange={checkbox(FormMsg::SetFullPrompt)} />
                    {" full language doc + API in the prompt"}
                </label>
            }
        </div>
    }
}

/// A numeric setting's input (`id`: the setting's name for [`FormMsg::SetNumber`]).
fn number_input(
    id: &'static str,
    label: &'static str,
    value: String,
    step: &'static str,
    p: &FormProps,
) -> Html {
    let onchange = p.send.reform(move |e: Event| {
        FormMsg::SetNumber(id, e.target_unchecked_into::<HtmlInputElement>().value())
    });
    html! {
        <label class="num">{label}
            <input id={id} type="number" step={step} value={value} onchange={onchange} disabled={p.busy} />
        </label>
    }
}
