//! [`prompt_ids`]: the prompt of a task as token ids, and the one place that makes the
//! "FIM tokens or chat" choice. A fill-in-the-middle task on a model whose vocabulary
//! has FIM tokens (`<|fim_prefix|>` / `<|fim_suffix|>` / `<|fim_middle|>`, StarCoder's
//! `<fim_prefix>` ..., DeepSeek-Coder's `<｜fim▁begin｜>` ...) gets the standard
//! prefix-suffix-middle order; every other task (and FIM on SmolLM2, which has no FIM
//! tokens) gets the task's text in the model's chat format ([`crate::chat_of`]).

use espalier_decode::{Framing, GenerateConfig, Lang, Mode, Task};
use espalier_model::Tokenizer;

use crate::{chat_of, EngineError};

/// A task's prompt as token ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptIds {
    /// The ids to feed the model.
    pub ids: Vec<u32>,
    /// Whether they are the model's own FIM-token prompt.
    pub fim_tokens: bool,
    /// Whether the prompt's last token is healed (the task's rule, [`Task::configure`];
    /// never after FIM tokens: the last is `<|fim_middle|>`, not the prefix's last token).
    pub heal: bool,
}

/// The prompt ids of `task` for the model of `tok`.
pub fn prompt_ids(tok: &Tokenizer, task: &Task) -> Result<PromptIds, EngineError> {
    if task.framing == Framing::Fim {
        if let Some(ids) = tok.fim_prompt(&task.request, &task.suffix) {
            return Ok(PromptIds { ids: ids?, fim_tokens: true, heal: false });
        }
    }
    let text = task.prompt_with(&chat_of(tok))?;
    let heal = task.configure(GenerateConfig::default()).heal_prompt;
    Ok(PromptIds { ids: tok.encode_prompt(&text)?, fim_tokens: false, heal })
}

/// The prompt ids of a fill-in-the-middle task in `lang` between `prefix` and `suffix`
/// (the prompt does not depend on the constraint mode).
pub fn fim_prompt_ids(
    tok: &Tokenizer,
    lang: Lang,
    prefix: &str,
    suffix: &str,
) -> Result<PromptIds, EngineError> {
    prompt_ids(tok, &Task::fim(lang, Mode::None, prefix, suffix))
}
