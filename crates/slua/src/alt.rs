//! [`Alt`]: one alternative of a segment (a lexeme, the carried byte already
//! consumed, the look-ahead class that ends it), its regex and its match, and
//! [`AltKey`], what decides its regex for the segment cache.

use std::rc::Rc;

use crate::byte_set::{is_ws, ByteSet, WS};
use crate::lexeme::Lex;
use crate::text::Text;

/// One alternative of a segment: a lexeme, the part of it already consumed (the
/// carried look-ahead character), and the look-ahead class that ends it.
#[derive(Clone, Debug)]
pub struct Alt {
    /// The lexeme.
    pub lex: Lex,
    /// Bytes of the lexeme already consumed through a carried look-ahead (0 or 1).
    pub done: Vec<u8>,
    /// The look-ahead class (for extensible lexemes).
    pub la: Option<ByteSet>,
    /// Which action of the tree this alternative stands for.
    pub action: usize,
}

/// What decides an alternative's regex, for caching compiled segments without
/// writing the regex (see [`crate::dfa::DfaCache::get_for_alts`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AltKey {
    lex: LexKey,
    done: Vec<u8>,
    la: Option<u128>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum LexKey {
    /// The text as the alternative holds it (compared by address first).
    Lit(Text),
    Number,
    Str,
    /// The word list is hashed by address (the key holds it, so the address is not
    /// reused while cached) and compared by address first: comparing ~30 words per
    /// segment cost a tenth of checking. Equal lists at other addresses (another
    /// environment's) only miss the cache.
    Name(bool, Rc<Vec<String>>),
}

impl Alt {
    /// The consumed bytes as far as the regex depends on them: after a carried
    /// digit a number's rest is the same whichever digit it was (ten keys for one
    /// automaton otherwise).
    fn done_key(&self) -> &[u8] {
        match self.lex {
            Lex::Number if !self.done.is_empty() => b"0",
            _ => &self.done,
        }
    }

    /// The key of this alternative's regex (see [`AltKey`]); `None` for names in
    /// scope, whose regex is not cached.
    pub fn key(&self) -> Option<AltKey> {
        let lex = match &self.lex {
            Lex::Lit(s) => LexKey::Lit(s.clone()),
            Lex::Number => LexKey::Number,
            Lex::Str => LexKey::Str,
            Lex::Name { upper, exclude } => LexKey::Name(*upper, exclude.clone()),
            Lex::Scoped(_) => return None,
        };
        Some(AltKey { lex, done: self.done_key().to_vec(), la: self.la.map(|l| l.0) })
    }

    /// Whether `key` is this alternative's key (no allocation).
    pub fn has_key(&self, key: &AltKey) -> bool {
        let lex = match (&self.lex, &key.lex) {
            // Keywords and API names are shared texts: most keys match by address.
            (Lex::Lit(a), LexKey::Lit(b)) => {
                std::ptr::eq(a.as_str(), b.as_str()) || a.as_str() == b.as_str()
            }
            (Lex::Number, LexKey::Number) | (Lex::Str, LexKey::Str) => true,
            (Lex::Name { upper, exclude }, LexKey::Name(u, words)) => {
                upper == u && (Rc::ptr_eq(exclude, words) || exclude == words)
            }
            _ => false,
        };
        // `done` holds at most one byte: compared without a call to memcmp.
        let done = self.done_key();
        lex && done.len() == key.done.len()
            && done.first() == key.done.first()
            && self.la.map(|l| l.0) == key.la
    }

    /// Hashes what [`Alt::key`] holds, without building it.
    pub fn hash_key(&self, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        match &self.lex {
            Lex::Lit(s) => (0u8, s.as_bytes()).hash(h),
            Lex::Number => 1u8.hash(h),
            Lex::Str => 2u8.hash(h),
            Lex::Name { upper, exclude } => (3u8, *upper, Rc::as_ptr(exclude) as usize).hash(h),
            Lex::Scoped(_) => 4u8.hash(h),
        }
        self.done_key().hash(h);
        self.la.map(|l| l.0).hash(h);
    }

    /// The regex of this alternative.
    pub fn regex(&self) -> String {
        if let Lex::Scoped(names) = &self.lex {
            return names.regex(&self.done);
        }
        let mut s = String::new();
        if self.done.is_empty() {
            s.push_str(WS);
        }
        s.push_str(&self.lex.regex_rest(&self.done));
        if let Some(la) = self.la {
            s.push_str(&la.class());
        }
        s
    }

    /// The alternative after a carried byte `c`, if `c` can start it.
    pub fn after(&self, c: u8) -> Option<Alt> {
        if !self.done.is_empty() {
            return None;
        }
        if is_ws(c) {
            return Some(self.clone());
        }
        if !self.lex.first().contains(c) {
            return None;
        }
        if let Lex::Lit(s) = &self.lex {
            if s.len() == 1 {
                // The whole lexeme was the carried byte: only the look-ahead is left,
                // or nothing (then the segment is complete already; callers avoid
                // this by never carrying a byte that completes a lexeme).
                self.la?;
            }
        }
        let mut a = self.clone();
        a.done = vec![c];
        Some(a)
    }

    /// Whether `text` (the whole segment, including carried bytes) matches.
    pub fn matches(&self, text: &[u8]) -> bool {
        let mut i = 0;
        if self.done.is_empty() {
            while i < text.len() && is_ws(text[i]) {
                i += 1;
            }
        } else if !text.starts_with(&self.done) {
            return false;
        }
        if let Lex::Scoped(names) = &self.lex {
            let Some((n, k)) = names.match_len(&text[i..]) else { return false };
            let la = names.accepted(k).map(|k| k.la).unwrap_or_default();
            return i + n + 1 == text.len() && la.contains(text[i + n]);
        }
        let Some(n) = self.lex.match_len(&text[i..]) else { return false };
        i += n;
        match self.la {
            Some(la) => i + 1 == text.len() && la.contains(text[i]),
            None => i == text.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexeme::tests::full;

    #[test]
    fn alternatives_match_what_their_regex_matches() {
        let mut la = ByteSet::default();
        la.insert(b' ');
        la.insert(b'(');
        let alt = Alt { lex: Lex::Number, done: vec![], la: Some(la), action: 0 };
        for s in ["  12 ", "1.5(", "3 "] {
            assert!(alt.matches(s.as_bytes()) && full(&alt.regex(), s), "{s}");
        }
        for s in ["1.", "1.5", "12x", "1..", " 1.5.2 "] {
            assert!(!alt.matches(s.as_bytes()) && !full(&alt.regex(), s), "{s}");
        }
        let s = Alt { lex: Lex::Str, done: vec![], la: None, action: 0 };
        assert!(s.matches(br#" "a\"b""#) && full(&s.regex(), r#" "a\"b""#));
        let after = s.after(b'"').unwrap();
        assert!(full(&after.regex(), r#"x""#));
    }
}
