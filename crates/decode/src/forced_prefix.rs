//! The mask under a forced prefix: bytes the constraint has committed that no token
//! has produced yet (a heal, or prompt healing). A token may come next when it extends
//! the prefix with bytes the constraint allows, or when it is a prefix of it whose rest
//! some sequence of tokens can still spell: without that look-ahead a short token could
//! strand the prefix where no token continues it.

use espalier_constraint::{TokenSet, Vocab};

use crate::stop::is_stop_token;

/// Fills `mask` with the tokens that may come next under the non-empty `forced`
/// prefix; `extension_allowed` says whether bytes past the prefix may come next.
pub(crate) fn fill_forced_mask(
    vocab: &Vocab,
    forced: &[u8],
    mask: &mut TokenSet,
    extension_allowed: impl Fn(&[u8]) -> bool,
) {
    let f = forced;
    // spellable[k]: forced[k..] can be produced by tokens (ending at or past its end).
    let mut spellable = vec![false; f.len() + 1];
    spellable[f.len()] = true;
    for k in (0..f.len()).rev() {
        let rest = &f[k..];
        spellable[k] = (0..vocab.len() as u32).any(|id| {
            let b = vocab.bytes(id);
            !b.is_empty()
                && !is_stop_token(vocab, id)
                && ((rest.starts_with(b) && spellable[k + b.len()])
                    || (b.len() > rest.len()
                        && b.starts_with(rest)
                        && extension_allowed(&b[rest.len()..])))
        });
    }
    mask.clear();
    for id in 0..vocab.len() as u32 {
        let b = vocab.bytes(id);
        if b.is_empty() || is_stop_token(vocab, id) {
            continue;
        }
        let ok = if f.starts_with(b) {
            spellable[b.len()]
        } else {
            b.len() > f.len() && b.starts_with(f) && extension_allowed(&b[f.len()..])
        };
        if ok {
            mask.insert(id as usize);
        }
    }
}
