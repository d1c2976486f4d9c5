//! Exact masks and the quote that closes a Python f-string.
//!
//! The grammar crate's recognizer refuses an f-string's closing quote when the
//! literal's replacement fields are invalid (CPython 3.11 checks them once the literal
//! is read: `f"{a("` ends at its second quote, with a field still open). That is the
//! one in-lexeme byte the lexer DFA cannot decide, so the trie walk's light paths
//! ([`crate::lexer_walk`], [`crate::lexeme_starts`]) allow a token that ends exactly
//! on such a quote. Before this re-check the decoder could sample `"` there and then
//! find no byte that continues (issue 13: `dead_end` on BOUNDARY 328, RANDSPAN 339).
//! A token with bytes after the quote is already decided right: the next byte ends the
//! lexeme on the full recognizer, which checks the fields.
//!
//! So after a walk, the allowed tokens whose last byte is a quote are pushed through
//! the full recognizer when an f-string can be open at their quote: the text's
//! unfinished lexeme is (or may become) an f-string (all such tokens: ~1,100 of the
//! SmolLM2 vocabulary end in a quote), or the token opens one itself (`f"{}"`-like
//! tokens: a handful). Elsewhere nothing is pushed.

use espalier_grammar::{Recognizer as GrammarRecognizer, TokenParser};

use crate::{TokTrie, TokenSet};

/// The vocabulary's tokens that end in a quote, with their bytes.
#[derive(Clone, Debug, Default)]
pub(crate) struct QuoteEnds {
    /// (token id, start of its bytes in `bytes`), ending with a sentinel.
    toks: Vec<(u32, u32)>,
    bytes: Vec<u8>,
    /// Indices into `toks` of the tokens that open an f-string before their last byte.
    own: Vec<u32>,
}

impl QuoteEnds {
    /// Collects them from the trie (one preorder pass over its nodes).
    pub(crate) fn new(trie: &TokTrie) -> Self {
        let mut out = QuoteEnds::default();
        let mut path: Vec<u8> = Vec::new();
        let mut ends: Vec<usize> = Vec::new(); // subtree end of each node on `path`
        let mut i = 1;
        let n = trie.node_count();
        while i < n {
            while ends.last().is_some_and(|&e| e <= i) {
                ends.pop();
                path.pop();
            }
            let (byte, tok, size, _) = trie.node_info(i);
            path.push(byte);
            ends.push(i + size);
            if tok != u32::MAX && is_quote(byte) {
                out.add(tok, &path);
            }
            i += 1;
        }
        for (id, bytes) in trie.long_tokens() {
            if bytes.last().copied().is_some_and(is_quote) {
                out.add(*id, bytes);
            }
        }
        out.toks.push((u32::MAX, out.bytes.len() as u32));
        out
    }

    fn add(&mut self, tok: u32, bytes: &[u8]) {
        if opens_fstring(&bytes[..bytes.len() - 1]) {
            self.own.push(self.toks.len() as u32);
        }
        self.toks.push((tok, self.bytes.len() as u32));
        self.bytes.extend_from_slice(bytes);
    }

    fn token(&self, k: usize) -> (u32, &[u8]) {
        let (id, start) = self.toks[k];
        (id, &self.bytes[start as usize..self.toks[k + 1].1 as usize])
    }

    /// Removes from `mask` the tokens ending in a quote that `state` refuses
    /// (`scratch` is overwritten). Python only; a no-op for other languages.
    pub(crate) fn recheck<P: TokenParser>(
        &self,
        state: &GrammarRecognizer<P>,
        scratch: &mut GrammarRecognizer<P>,
        mask: &mut TokenSet,
    ) {
        if state.language().python().is_none() {
            return;
        }
        let rem = state.remainder_bytes();
        if let Some(open) = OpenLiteral::of(rem) {
            // Inside a one-quote f-string: only tokens holding its quote can close it,
            // and most of them are decided by what they add before it (see `verdict`).
            let close_ok = !open.field_open && {
                scratch.clone_from(state);
                scratch.try_push_byte(open.quote)
            };
            for k in 0..self.toks.len() - 1 {
                let (id, bytes) = self.token(k);
                if !bytes.contains(&open.quote) || !mask.contains(id as usize) {
                    continue;
                }
                let keep = match open.verdict(bytes, close_ok) {
                    Some(v) => v,
                    None => pushes(state, scratch, bytes),
                };
                if !keep {
                    mask.remove(id as usize);
                }
            }
            return;
        }
        // Every token ending in a quote, or only those holding a quote of their own
        // (two loops rather than a boxed iterator: no allocation per mask).
        let mut recheck = |k: usize| {
            let (id, bytes) = self.token(k);
            if mask.contains(id as usize) && !pushes(state, scratch, bytes) {
                mask.remove(id as usize);
            }
        };
        if may_be_fstring(rem) {
            (0..self.toks.len() - 1).for_each(&mut recheck);
        } else {
            self.own.iter().for_each(|&k| recheck(k as usize));
        }
    }
}

/// Whether `state` takes `bytes` (`scratch` is overwritten).
fn pushes<P: TokenParser>(
    state: &GrammarRecognizer<P>,
    scratch: &mut GrammarRecognizer<P>,
    bytes: &[u8],
) -> bool {
    scratch.clone_from(state);
    scratch.try_push_bytes(bytes)
}

/// An unfinished f-string literal with one quote, read up to the text's end.
struct OpenLiteral {
    quote: u8,
    /// A replacement field is open (its expression, conversion or spec).
    field_open: bool,
}

impl OpenLiteral {
    /// `None` unless `lexeme` is an f-string with one opening quote, not yet closed,
    /// whose body does not end in a byte that the next one may pair with (`{`, `}`,
    /// `\`).
    fn of(lexeme: &[u8]) -> Option<Self> {
        let letters = lexeme.iter().take_while(|&&b| is_prefix_letter(b)).count();
        let quote = *lexeme.get(letters)?;
        if letters > 2
            || !is_quote(quote)
            || !lexeme[..letters].iter().any(|&b| b == b'f' || b == b'F')
        {
            return None;
        }
        let body = &lexeme[letters + 1..];
        if body.first() == Some(&quote) || matches!(body.last(), Some(b'{' | b'}' | b'\\')) {
            return None; // `f""` (read, or opening `f"""`), or a pending pair
        }
        let mut escaped = false;
        for &b in body {
            if b == quote && !escaped {
                return None; // already closed
            }
            escaped = !escaped && b == b'\\';
        }
        let closer = espalier_grammar::layers::python::fstring_closer::closers(lexeme);
        let tail = closer.first()?;
        Some(OpenLiteral { quote, field_open: tail.len() > 1 })
    }

    /// The verdict on `token` (allowed by the walk, holding the quote) without the
    /// full recognizer. A token with bytes after the quote that ends the literal was
    /// decided by the walk on the full recognizer (the next byte ends the lexeme):
    /// kept. Where what it adds before the quote cannot change the fields (no brace
    /// or backslash): with a field open the quote ends the literal with the field
    /// still open, refused; else the verdict for closing it right here (`close_ok`).
    /// `None`: check it in full.
    fn verdict(&self, token: &[u8], close_ok: bool) -> Option<bool> {
        if token.contains(&b'\\') {
            return None; // the quote may be escaped
        }
        let q = token.iter().position(|&b| b == self.quote)?;
        if q + 1 < token.len() {
            return Some(true);
        }
        if token[..q].iter().any(|&b| matches!(b, b'{' | b'}' | b'\\')) {
            return None;
        }
        Some(!self.field_open && close_ok)
    }
}

fn is_quote(b: u8) -> bool {
    b == b'"' || b == b'\''
}

fn is_prefix_letter(b: u8) -> bool {
    matches!(b, b'f' | b'F' | b'r' | b'R')
}

/// Whether an unfinished lexeme is an f-string or a string prefix that may start one
/// (`f`, `r`, `Rf`, `f"...`).
pub(crate) fn may_be_fstring(lexeme: &[u8]) -> bool {
    let letters = lexeme.iter().take_while(|&&b| is_prefix_letter(b)).count();
    if letters == 0 || letters > 2 {
        return false;
    }
    let prefix = &lexeme[..letters];
    match lexeme.get(letters) {
        None => prefix.len() == 1 || prefix.iter().any(|&b| b == b'f' || b == b'F'),
        Some(&q) => is_quote(q) && prefix.iter().any(|&b| b == b'f' || b == b'F'),
    }
}

/// Whether `bytes` hold an f-string opening: a quote after an `f` prefix (`f"`,
/// `rf'`, `fR"`). Openings that the text before the token completes (`"` after `f`,
/// `f"` after `r`) are the unfinished lexeme's case ([`may_be_fstring`]).
fn opens_fstring(bytes: &[u8]) -> bool {
    (0..bytes.len()).any(|i| {
        is_quote(bytes[i]) && {
            let letters =
                bytes[..i].iter().rev().take_while(|&&b| is_prefix_letter(b)).count().min(2);
            bytes[i - letters..i].iter().any(|&b| b == b'f' || b == b'F')
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fstring_starts() {
        for yes in [&b"f"[..], b"r", b"Rf", b"f\"{a(", b"rf'x"] {
            assert!(may_be_fstring(yes), "{:?}", String::from_utf8_lossy(yes));
        }
        for no in [&b"fx"[..], b"rb", b"\"abc", b"b'x", b"format", b""] {
            assert!(!may_be_fstring(no), "{:?}", String::from_utf8_lossy(no));
        }
        for yes in [&b"f\"{"[..], b"rf'", b"x = f'{a"] {
            assert!(opens_fstring(yes), "{:?}", String::from_utf8_lossy(yes));
        }
        for no in [&b"x\""[..], b"abc", b"b'", b"(\"", b"\"{}"] {
            assert!(!opens_fstring(no), "{:?}", String::from_utf8_lossy(no));
        }
    }
}
