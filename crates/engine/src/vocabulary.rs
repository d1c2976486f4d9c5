//! [`vocab_of`]: the vocabulary as constraints see it (every token's raw bytes, the
//! special ids, EOS), read from a model's tokenizer.

use espalier_constraint::Vocab;
use espalier_model::Tokenizer;

/// Token bytes, special ids and EOS of `tok`'s model.
pub fn vocab_of(tok: &Tokenizer) -> Vocab {
    Vocab::new(tok.all_token_bytes().to_vec(), &tok.special_ids(), tok.eos_id())
}
