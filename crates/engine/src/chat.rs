//! [`chat_of`]: a model's chat format, read from its tokenizer (the GGUF's template, the
//! BOS / EOS texts and the family the pre-tokenizer names), so that a user's own GGUF
//! gets its own prompt format in the CLI, the lab and the playground alike.

use espalier_decode::prompt::Chat;
use espalier_model::Tokenizer;

/// The model's chat format (its GGUF's template, BOS / EOS texts and family).
pub fn chat_of(tok: &Tokenizer) -> Chat<'_> {
    Chat::of_model(
        tok.chat_template(),
        tok.token_text(tok.bos_id()),
        tok.token_text(tok.eos_id()),
        tok.pre_tokenizer(),
    )
}
