//! Fill in the middle: the two boxes (the code left and right of the cursor) and the
//! code view with the middle written in place between them.

use yew::prelude::*;

/// The prefix and suffix boxes; `on_prefix` / `on_suffix` get the edited text.
pub fn fim_inputs(
    prefix: &str,
    suffix: &str,
    busy: bool,
    on_prefix: Callback<String>,
    on_suffix: Callback<String>,
) -> Html {
    let text = |cb: Callback<String>| {
        Callback::from(move |e: InputEvent| {
            cb.emit(e.target_unchecked_into::<web_sys::HtmlTextAreaElement>().value())
        })
    };
    html! {
        <div class="fim-inputs">
            <label>{"Code before the cursor"}
                <textarea id="fim-prefix" rows="4" value={prefix.to_owned()} oninput={text(on_prefix)} disabled={busy} />
            </label>
            <label>{"Code after the cursor"}
                <textarea id="fim-suffix" rows="4" value={suffix.to_owned()} oninput={text(on_suffix)} disabled={busy} />
            </label>
        </div>
    }
}

/// The whole file: the prefix and the suffix dimmed, the middle so far marked between
/// them (`#code` holds the file's text, `#middle` the middle's).
pub fn fim_code(prefix: &str, middle: &str, suffix: &str) -> Html {
    html! {
        <pre id="code" class="plain fim">
            <span class="fim-side">{prefix.to_owned()}</span>
            <span id="middle" class="fim-middle">{middle.to_owned()}</span>
            <span class="fim-caret" />
            <span class="fim-side">{suffix.to_owned()}</span>
        </pre>
    }
}
