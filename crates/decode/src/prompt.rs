//! Chat prompts: the chat template stored in the GGUF (a Jinja template, rendered with
//! minijinja as Hugging Face's `apply_chat_template` does), and ChatML without one.
//! What each language asks is its own ([`crate::LangSpec::instruction`]); a
//! [`crate::Task`] puts the two together.

use serde::Serialize;

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

/// Renders `template` (the GGUF's `tokenizer.chat_template`) for `messages`, ending
/// with the assistant header when `add_generation_prompt`; ChatML when `None`.
pub fn render_chat(
    template: Option<&str>,
    messages: &[Message],
    add_generation_prompt: bool,
) -> Result<String, TemplateError> {
    let Some(template) = template else { return Ok(chatml(messages, add_generation_prompt)) };
    let mut env = minijinja::Environment::new();
    env.add_function("raise_exception", |msg: String| -> Result<String, minijinja::Error> {
        Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, msg))
    });
    env.add_template("chat", template).map_err(|e| TemplateError(e.to_string()))?;
    let tmpl = env.get_template("chat").map_err(|e| TemplateError(e.to_string()))?;
    tmpl.render(minijinja::context! {
        messages => messages,
        add_generation_prompt => add_generation_prompt,
        bos_token => "<|im_start|>",
        eos_token => "<|im_end|>",
    })
    .map_err(|e| TemplateError(e.to_string()))
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
        assert!(default.starts_with("<|im_start|>system\nYou are a helpful AI assistant named SmolLM"));
    }

    #[test]
    fn a_broken_template_is_an_error_not_a_panic() {
        let err = render_chat(Some("{% for %}"), &[], true).unwrap_err();
        assert!(err.to_string().contains("chat template"));
        let err = render_chat(Some("{{ raise_exception('no system') }}"), &[], true).unwrap_err();
        assert!(err.to_string().contains("no system"), "{err}");
    }
}
