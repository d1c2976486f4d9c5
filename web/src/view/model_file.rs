//! "Open a GGUF file": a file picker (the file is read by the worker, on this machine;
//! nothing is uploaded) and the loaded model's facts (name, architecture, weight
//! formats, size, the memory check).

use yew::prelude::*;

/// The facts of the model loaded, the picker (off while `busy`) and why the last file
/// opened was refused; `on_pick` gets the input's change.
pub fn model_file(
    facts: &[String],
    busy: bool,
    refused: Option<&str>,
    on_pick: Callback<Event>,
) -> Html {
    html! {
        <section class="model-file">
            if let Some(why) = refused {
                <p id="file-error" class="error">{why.to_owned()}</p>
            }
            if !facts.is_empty() {
                <ul id="model-facts">{ for facts.iter().map(|f| html!{ <li>{f.clone()}</li> }) }</ul>
            }
            <label title="Any Llama- or Qwen2-family GGUF (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K, F16, F32); the file stays on this machine">
                {"Open a GGUF file: "}
                <input id="gguf-file" type="file" accept=".gguf" disabled={busy} onchange={on_pick} />
            </label>
        </section>
    }
}
