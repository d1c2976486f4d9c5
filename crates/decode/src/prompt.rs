//! Chat prompts: the chat template stored in the GGUF (a Jinja template, rendered with
//! minijinja as Hugging Face's `apply_chat_template` does: `tests/it/chat_templates.rs`
//! compares both on the templates of the families we support), and the family's own
//! format ([`ChatFamily`]: ChatML, Llama-2, Llama-3, DeepSeek-Coder) without one.
//! What each language asks is its own ([`crate::Prompting::instruction`]); a
//! [`crate::Task`] puts the two together.

use std::io::{self, Write};

use serde::Serialize;

pub use crate::chat_family::ChatFamily;

/// A chat template that did not render.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("chat template (tokenizer.chat_template in the GGUF) failed to render: {0}")]
pub struct TemplateError(pub String);

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The message text.
    pub content: String,
}

impl Message {
    /// A message with `role` and `content`.
    pub fn new(role: &str, content: impl Into<String>) -> Self {
        Self { role: role.to_string(), content: content.into() }
    }
}

/// ChatML, what SmolLM2's template produces; used when a model has no template.
pub fn chatml(messages: &[Message], add_generation_prompt: bool) -> String {
    let mut out = String::new();
    for m in messages {
        out.push_str(&format!("<|im_start|>{}\n{}<|im_end|>\n", m.role, m.content));
    }
    if add_generation_prompt {
        out.push_str("<|im_start|>assistant\n");
    }
    out
}

/// How a model wants its chats written: the GGUF's own template (Jinja), the texts
/// of the tokens it names, and the family format used when the file has no template
/// or one that does not render here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chat<'a> {
    /// `tokenizer.chat_template`, if the file has one.
    pub template: Option<&'a str>,
    /// The BOS token's text (`bos_token` in the template).
    pub bos_token: &'a str,
    /// The EOS token's text (`eos_token` in the template).
    pub eos_token: &'a str,
    /// The format when there is no template ([`ChatFamily::for_vocabulary`]).
    pub fallback: ChatFamily,
}

impl<'a> Chat<'a> {
    /// The model's chat format from what its GGUF says: `tokenizer.chat_template`, the
    /// BOS / EOS texts, and the pre-tokenizer name, whose family format applies when the
    /// file has no template (the CLI and the playground build their prompts from this).
    pub fn of_model(
        template: Option<&'a str>,
        bos_token: &'a str,
        eos_token: &'a str,
        pre_tokenizer: Option<&str>,
    ) -> Self {
        Chat { template, bos_token, eos_token, fallback: ChatFamily::for_vocabulary(pre_tokenizer) }
    }
}

impl<'a> From<Option<&'a str>> for Chat<'a> {
    /// A template with SmolLM2's tokens and ChatML as the fallback (what callers that
    /// know no more about the model get, as before).
    fn from(template: Option<&'a str>) -> Self {
        Self {
            template,
            bos_token: "<|im_start|>",
            eos_token: "<|im_end|>",
            fallback: ChatFamily::ChatMl,
        }
    }
}

/// Renders `template` (the GGUF's `tokenizer.chat_template`) for `messages`, ending
/// with the assistant header when `add_generation_prompt`; ChatML when `None`.
pub fn render_chat(
    template: Option<&str>,
    messages: &[Message],
    add_generation_prompt: bool,
) -> Result<String, TemplateError> {
    render_chat_with(&Chat::from(template), messages, add_generation_prompt)
}

/// Renders a chat as `chat` says: the file's own template as Hugging Face's
/// `apply_chat_template` does ([`render_jinja`]); the family format without one. A
/// template that refuses a system message (`raise_exception`) gets it merged into the
/// first user turn, as llama.cpp does; one that does not render here at all is
/// replaced by the family format its text shows ([`ChatFamily::detect`]), else it is
/// an error.
pub fn render_chat_with(
    chat: &Chat,
    messages: &[Message],
    add_generation_prompt: bool,
) -> Result<String, TemplateError> {
    let render = |template: &str, messages: &[Message]| {
        render_jinja(template, messages, add_generation_prompt, chat.bos_token, chat.eos_token)
    };
    let Some(template) = chat.template else { return render(chat.fallback.template(), messages) };
    let err = match render(template, messages) {
        Ok(text) => return Ok(text),
        Err(e) => e,
    };
    if let Some(merged) = merge_system(messages) {
        if let Ok(text) = render(template, &merged) {
            return Ok(text);
        }
    }
    match ChatFamily::detect(template) {
        Some(family) => render(family.template(), messages),
        None => Err(err),
    }
}

/// The messages with a leading system message put in front of the first user turn
/// (`None` without one).
fn merge_system(messages: &[Message]) -> Option<Vec<Message>> {
    let (first, rest) = messages.split_first()?;
    if first.role != "system" {
        return None;
    }
    let mut out = rest.to_vec();
    match out.iter_mut().find(|m| m.role == "user") {
        Some(user) => user.content = format!("{}\n\n{}", first.content, user.content),
        None => out.insert(0, Message::new("user", first.content.clone())),
    }
    Some(out)
}

/// Renders one Jinja chat template as `transformers`' `apply_chat_template` does
/// (`chat_template_utils.py`): `trim_blocks` and `lstrip_blocks`, loop controls, the
/// Python string and dict methods templates call (`.strip()`, `.startswith()`,
/// `.items()`: minijinja-contrib's `pycompat`), `raise_exception`, and `tojson`
/// without HTML escaping; `messages`, `add_generation_prompt`, `bos_token` and
/// `eos_token` in the context. (`strftime_now` is left undefined, so templates that
/// print a date fall back to their own default.)
pub fn render_jinja(
    template: &str,
    messages: &[Message],
    add_generation_prompt: bool,
    bos_token: &str,
    eos_token: &str,
) -> Result<String, TemplateError> {
    let mut env = minijinja::Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    env.add_function("raise_exception", |msg: String| -> Result<String, minijinja::Error> {
        Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, msg))
    });
    env.add_filter("tojson", tojson);
    env.add_template("chat", template).map_err(|e| TemplateError(e.to_string()))?;
    let tmpl = env.get_template("chat").map_err(|e| TemplateError(e.to_string()))?;
    tmpl.render(minijinja::context! {
        messages => messages,
        add_generation_prompt => add_generation_prompt,
        bos_token => bos_token,
        eos_token => eos_token,
    })
    .map_err(|e| TemplateError(e.to_string()))
}

/// `tojson` as `transformers` defines it: `json.dumps(x, ensure_ascii=False,
/// indent=indent)`, no HTML escaping (minijinja's own escapes `<`, `>`, `&`, `'`), keys
/// in the order the template's dicts have them.
fn tojson(
    value: minijinja::Value,
    kwargs: minijinja::value::Kwargs,
) -> Result<String, minijinja::Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    kwargs.assert_all_used()?;
    let mut out = Vec::new();
    let written = match indent {
        None => serde::Serialize::serialize(
            &value,
            &mut serde_json::Serializer::with_formatter(&mut out, PythonSeparators),
        ),
        Some(n) => {
            let pad = vec![b' '; n];
            let pretty = serde_json::ser::PrettyFormatter::with_indent(&pad);
            serde::Serialize::serialize(
                &value,
                &mut serde_json::Serializer::with_formatter(&mut out, pretty),
            )
        }
    };
    written.map_err(|e| {
        minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string())
    })?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Python's `json.dumps` separators without an indent: `", "` and `": "`.
struct PythonSeparators;

impl serde_json::ser::Formatter for PythonSeparators {
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        comma_unless_first(w, first)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        comma_unless_first(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

/// The separator before an array value or an object key: `", "`, none before the first.
fn comma_unless_first<W: ?Sized + Write>(w: &mut W, first: bool) -> io::Result<()> {
    if first {
        Ok(())
    } else {
        w.write_all(b", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SmolLM2-135M-Instruct's `tokenizer.chat_template` (from its GGUF).
    const SMOLLM2: &str = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

    #[test]
    fn the_smollm2_template_renders_chatml() {
        let msgs = [Message::new("system", "Be brief."), Message::new("user", "Hi")];
        let out = render_chat(Some(SMOLLM2), &msgs, true).unwrap();
        assert_eq!(out, chatml(&msgs, true));
        let default = render_chat(Some(SMOLLM2), &msgs[1..], false).unwrap();
        assert!(
            default.starts_with("<|im_start|>system\nYou are a helpful AI assistant named SmolLM")
        );
    }

    #[test]
    fn a_broken_template_is_an_error_not_a_panic() {
        let err = render_chat(Some("{% for %}"), &[], true).unwrap_err();
        assert!(err.to_string().contains("chat template"));
        let err = render_chat(Some("{{ raise_exception('no system') }}"), &[], true).unwrap_err();
        assert!(err.to_string().contains("no system"), "{err}");
    }
}
