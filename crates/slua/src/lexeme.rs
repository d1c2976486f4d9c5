//! Lexemes: the unit every parser node asks for, and how one becomes (part of) a
//! segment regex.
//!
//! A *segment* is optional leading whitespace, one lexeme and, where the lexeme could
//! be extended into another (`x` / `xy`, `<` / `<=`, `1` / `1.5`), one *look-ahead*
//! character drawn from exactly the characters that can start what follows. The
//! look-ahead makes every segment regex non-extensible (A1): a match ends either at a
//! lexeme that no other lexeme extends, or at a character that cannot continue it. The
//! look-ahead character is carried into the next segment, whose regex is then the
//! derivative by that character ([`Alt::after`]).

use std::rc::Rc;

use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, Hir, Repetition};

use crate::scoped_names::ScopedNames;

/// Characters that continue an identifier.
pub fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whitespace allowed between lexemes.
pub fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n' || b == b'\r'
}

/// A set of ASCII bytes (look-ahead classes, first-character sets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByteSet(pub u128);

/// `0-9`.
pub const DIGITS: ByteSet = ByteSet::range(b'0', b'9');
/// `A-Z`.
pub const UPPER: ByteSet = ByteSet::range(b'A', b'Z');
/// `a-z`.
pub const LOWER: ByteSet = ByteSet::range(b'a', b'z');
/// Bytes that continue an identifier ([`is_ident_byte`]).
pub const IDENT: ByteSet = DIGITS.union(UPPER).union(LOWER).union(ByteSet::byte(b'_'));
/// Whitespace between lexemes ([`is_ws`]).
pub const WS_BYTES: ByteSet = ByteSet::byte(b' ').union(ByteSet::byte(b'\t')).union(ByteSet::byte(b'\n')).union(ByteSet::byte(b'\r'));

impl ByteSet {
    /// The bytes `lo..=hi` (ASCII).
    pub const fn range(lo: u8, hi: u8) -> ByteSet {
        let mut s = 0u128;
        let mut b = lo;
        while b <= hi && b < 128 {
            s |= 1u128 << b;
            b += 1;
        }
        ByteSet(s)
    }
    /// The set of one (ASCII) byte.
    pub const fn byte(b: u8) -> ByteSet {
        ByteSet(if b < 128 { 1u128 << b } else { 0 })
    }
    /// The union of two sets.
    pub const fn union(self, other: ByteSet) -> ByteSet {
        ByteSet(self.0 | other.0)
    }
    /// Whether `b` is in the set.
    pub fn contains(&self, b: u8) -> bool {
        b < 128 && self.0 & (1u128 << b) != 0
    }
    /// Adds `b` (non-ASCII bytes are ignored).
    pub fn insert(&mut self, b: u8) {
        if b < 128 {
            self.0 |= 1u128 << b;
        }
    }
    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }
    /// The members, increasing.
    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        (0u8..128).filter(|b| self.contains(*b))
    }
    /// Renders the set as a regex character class.
    pub fn class(&self) -> String {
        let mut s = String::from("[");
        for b in self.iter() {
            match b {
                b'\n' => s.push_str("\\n"),
                b'\t' => s.push_str("\\t"),
                b'\r' => s.push_str("\\r"),
                b'\\' | b']' | b'[' | b'^' | b'-' | b'&' | b'~' => {
                    s.push('\\');
                    s.push(b as char)
                }
                _ => s.push(b as char),
            }
        }
        s.push(']');
        s
    }
    /// The set of bytes satisfying `f`.
    pub fn from_fn(f: impl Fn(u8) -> bool) -> ByteSet {
        let mut s = ByteSet::default();
        for b in 0u8..128 {
            if f(b) {
                s.insert(b);
            }
        }
        s
    }
}

/// The text of a literal lexeme: a keyword written in the code (no allocation) or a
/// shared name (API functions, cloned by reference count). Statement starts offer
/// some 60 literals, each built per segment and per look-ahead: owned strings made
/// allocation a third of checking.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Text {
    /// Text in the program.
    Static(&'static str),
    /// Shared text.
    Shared(Rc<str>),
}

impl Text {
    /// The text.
    pub fn as_str(&self) -> &str {
        match self {
            Text::Static(s) => s,
            Text::Shared(s) => s,
        }
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<&'static str> for Text {
    fn from(s: &'static str) -> Text {
        Text::Static(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::Shared(s.into())
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text::Shared(s.as_str().into())
    }
}

/// What a parser node asks for next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lex {
    /// Fixed text: a keyword, an API name, punctuation.
    Lit(Text),
    /// A number literal `[0-9]+(\.[0-9]+)?`.
    Number,
    /// A string literal in double quotes with `\"`, `\\`, `\n` escapes.
    Str,
    /// A name in scope of an accepted kind ([`ScopedNames`]).
    Scoped(Rc<ScopedNames>),
    /// A new name: an identifier starting lower-case (`upper` false) or upper-case,
    /// other than the excluded words.
    Name {
        /// Upper-case first letter (effect names) instead of lower-case.
        upper: bool,
        /// Words the name may not be.
        exclude: Rc<Vec<String>>,
    },
}

/// Regex escape of literal text.
pub fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            _ => out.push(c),
        }
    }
    out
}

impl Lex {
    /// Whether another lexeme could extend this one, so a look-ahead must end it.
    pub fn extensible(&self) -> bool {
        match self {
            Lex::Lit(s) => {
                s.bytes().last().is_some_and(is_ident_byte) || matches!(s.as_str(), "<" | ">" | "=" | "." | "-")
            }
            Lex::Number | Lex::Name { .. } | Lex::Scoped(_) => true,
            Lex::Str => false,
        }
    }

    /// Characters that may not follow the lexeme directly (they would extend it).
    pub fn forbidden_after(&self) -> ByteSet {
        match self {
            Lex::Lit(s) if s.bytes().last().is_some_and(is_ident_byte) => IDENT,
            Lex::Lit(s) => match s.as_str() {
                "<" | ">" | "=" => ByteSet::byte(b'='),
                "." => ByteSet::byte(b'.'),
                "-" => ByteSet::byte(b'-').union(ByteSet::byte(b'>')),
                _ => ByteSet::default(),
            },
            Lex::Number => IDENT.union(ByteSet::byte(b'.')),
            Lex::Name { .. } | Lex::Scoped(_) => IDENT,
            Lex::Str => ByteSet::default(),
        }
    }

    /// Bytes a match of the lexeme can start with.
    pub fn first(&self) -> ByteSet {
        match self {
            Lex::Lit(s) => {
                let mut b = ByteSet::default();
                if let Some(c) = s.bytes().next() {
                    b.insert(c);
                }
                b
            }
            Lex::Number => DIGITS,
            Lex::Str => ByteSet::byte(b'"'),
            Lex::Name { upper: true, .. } => UPPER,
            Lex::Name { upper: false, .. } => LOWER,
            Lex::Scoped(names) => names.first(),
        }
    }

    /// Regex for the rest of the lexeme after `done` (empty or its first byte).
    pub(crate) fn regex_rest(&self, done: &[u8]) -> String {
        match self {
            Lex::Lit(s) => escape(&s[done.len()..]),
            // Alt::regex writes the whole alternative (a look-ahead per kind).
            Lex::Scoped(names) => names.regex(done),
            Lex::Number => {
                if done.is_empty() {
                    "[0-9]+(?:\\.[0-9]+)?".into()
                } else {
                    "[0-9]*(?:\\.[0-9]+)?".into()
                }
            }
            Lex::Str => {
                let body = "(?:[^\"\\\\\\n]|\\\\[\"\\\\n])*\"";
                if done.is_empty() {
                    format!("\"{body}")
                } else {
                    body.into()
                }
            }
            Lex::Name { upper, exclude } => {
                let words: Vec<&[u8]> = exclude.iter().map(|w| w.as_bytes()).collect();
                if done.is_empty() {
                    let first = if *upper { UPPER } else { LOWER };
                    format!("(?:{})", complement(&words, first, false))
                } else {
                    let rest: Vec<&[u8]> =
                        words.iter().filter(|w| w.first() == done.first()).map(|w| &w[1..]).collect();
                    format!("(?:{})", complement(&rest, IDENT, true))
                }
            }
        }
    }

    /// [`Lex::regex_rest`] as HIR, built without writing or parsing a regex (cold
    /// segments are built from these, see [`crate::dfa`]); `None` for names in scope.
    pub(crate) fn hir_rest(&self, done: &[u8]) -> Option<Hir> {
        let star = |h: Hir| Hir::repetition(Repetition { min: 0, max: None, greedy: true, sub: Box::new(h) });
        let plus = |h: Hir| Hir::repetition(Repetition { min: 1, max: None, greedy: true, sub: Box::new(h) });
        Some(match self {
            Lex::Lit(s) => Hir::literal(s.as_bytes()[done.len()..].to_vec()),
            Lex::Scoped(_) => return None,
            Lex::Number => {
                let digits = || byte_class(DIGITS);
                let fraction = Hir::concat(vec![Hir::literal(*b"."), plus(digits())]);
                let fraction = Hir::repetition(Repetition { min: 0, max: Some(1), greedy: true, sub: Box::new(fraction) });
                let whole = if done.is_empty() { plus(digits()) } else { star(digits()) };
                Hir::concat(vec![whole, fraction])
            }
            Lex::Str => {
                // `(?:[^"\\\n]|\\["\\n])*"`, after the opening quote.
                let plain = Hir::class(Class::Bytes(ClassBytes::new([
                    ClassBytesRange::new(0, b'\n' - 1),
                    ClassBytesRange::new(b'\n' + 1, b'"' - 1),
                    ClassBytesRange::new(b'"' + 1, b'\\' - 1),
                    ClassBytesRange::new(b'\\' + 1, 0xff),
                ])));
                let escaped = Hir::concat(vec![Hir::literal(*b"\\"), byte_class(ByteSet::byte(b'"').union(ByteSet::byte(b'\\')).union(ByteSet::byte(b'n')))]);
                let body = Hir::concat(vec![star(Hir::alternation(vec![plain, escaped])), Hir::literal(*b"\"")]);
                if done.is_empty() {
                    Hir::concat(vec![Hir::literal(*b"\""), body])
                } else {
                    body
                }
            }
            Lex::Name { upper, exclude } => {
                let words: Vec<&[u8]> = exclude.iter().map(|w| w.as_bytes()).collect();
                if done.is_empty() {
                    complement_hir(&words, if *upper { UPPER } else { LOWER }, false)
                } else {
                    let rest: Vec<&[u8]> = words.iter().filter(|w| w.first() == done.first()).map(|w| &w[1..]).collect();
                    complement_hir(&rest, IDENT, true)
                }
            }
        })
    }

    /// Length of the lexeme at the start of `s`, if one is there (maximal munch for
    /// numbers and names).
    pub fn match_len(&self, s: &[u8]) -> Option<usize> {
        match self {
            Lex::Scoped(names) => names.match_len(s).map(|(n, _)| n),
            Lex::Lit(t) => s.starts_with(t.as_bytes()).then_some(t.len()),
            Lex::Number => {
                let d = s.iter().take_while(|b| b.is_ascii_digit()).count();
                if d == 0 {
                    return None;
                }
                if s.get(d) == Some(&b'.') {
                    let f = s[d + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
                    if f > 0 {
                        return Some(d + 1 + f);
                    }
                }
                Some(d)
            }
            Lex::Str => {
                if s.first() != Some(&b'"') {
                    return None;
                }
                let mut i = 1;
                while i < s.len() {
                    match s[i] {
                        b'"' => return Some(i + 1),
                        b'\\' if matches!(s.get(i + 1), Some(b'"' | b'\\' | b'n')) => i += 2,
                        b'\\' | b'\n' => return None,
                        _ => i += 1,
                    }
                }
                None
            }
            Lex::Name { exclude, .. } => {
                if !self.first().contains(*s.first()?) {
                    return None;
                }
                let n = s.iter().take_while(|b| is_ident_byte(**b)).count();
                let w = std::str::from_utf8(&s[..n]).ok()?;
                (!exclude.iter().any(|x| x == w)).then_some(n)
            }
        }
    }
}

impl Lex {
    /// A shortest text of the lexeme, starting with `first` when given (a carried
    /// byte): what the finishing plan writes. `None` if no text starts so.
    pub fn shortest(&self, first: Option<u8>) -> Option<String> {
        let start = |default: char| first.map_or(default.to_string(), |c| (c as char).to_string());
        let text = match self {
            Lex::Lit(s) => s.to_string(),
            Lex::Scoped(names) => names.shortest(first)?,
            Lex::Number => start('0'),
            Lex::Str => "\"\"".to_string(),
            Lex::Name { upper, .. } => {
                let base = start(if *upper { 'A' } else { 'a' });
                // A reserved or taken word gets a digit appended until it is free.
                std::iter::once(base.clone())
                    .chain((0..1000).map(|k| format!("{base}{k}")))
                    .find(|n| self.match_len(n.as_bytes()) == Some(n.len()))?
            }
        };
        (first.is_none_or(|c| text.as_bytes().first() == Some(&c)) && self.match_len(text.as_bytes()) == Some(text.len())).then_some(text)
    }
}

/// Regex for identifier strings (first byte from `first`, then identifier bytes) that
/// are not one of `words`. `allow_empty`: the empty string counts (a first byte was
/// already consumed). Built on the trie of `words`, so its size is linear in theirs.
fn complement(words: &[&[u8]], first: ByteSet, allow_empty: bool) -> String {
    let ident = IDENT;
    let mut alts: Vec<String> = Vec::new();
    if allow_empty && !words.iter().any(|w| w.is_empty()) {
        alts.push(String::new());
    }
    let (children, other) = first_bytes(words, first);
    if !other.is_empty() {
        alts.push(format!("{}[0-9A-Z_a-z]*", other.class()));
    }
    for c in children {
        let rest: Vec<&[u8]> = words.iter().filter(|w| w.first() == Some(&c)).map(|w| &w[1..]).collect();
        alts.push(format!("{}(?:{})", escape(&(c as char).to_string()), complement(&rest, ident, true)));
    }
    alts.join("|")
}

/// The first bytes of `words` that `first` allows (sorted, once each), and the rest of
/// `first`: the branches of [`complement`] and [`complement_hir`].
fn first_bytes(words: &[&[u8]], first: ByteSet) -> (Vec<u8>, ByteSet) {
    let mut children: Vec<u8> = words.iter().filter_map(|w| w.first().copied()).filter(|c| first.contains(*c)).collect();
    children.sort_unstable();
    children.dedup();
    let mut other = first;
    for c in &children {
        other.0 &= !(1u128 << c);
    }
    (children, other)
}

/// [`complement`] as HIR, alternative for alternative.
fn complement_hir(words: &[&[u8]], first: ByteSet, allow_empty: bool) -> Hir {
    let mut alts: Vec<Hir> = Vec::new();
    if allow_empty && !words.iter().any(|w| w.is_empty()) {
        alts.push(Hir::empty());
    }
    let (children, other) = first_bytes(words, first);
    if !other.is_empty() {
        let rest = Hir::repetition(Repetition { min: 0, max: None, greedy: true, sub: Box::new(byte_class(IDENT)) });
        alts.push(Hir::concat(vec![byte_class(other), rest]));
    }
    for c in children {
        let rest: Vec<&[u8]> = words.iter().filter(|w| w.first() == Some(&c)).map(|w| &w[1..]).collect();
        alts.push(Hir::concat(vec![Hir::literal([c]), complement_hir(&rest, IDENT, true)]));
    }
    // The written form of no alternative at all is the empty regex.
    if alts.is_empty() {
        return Hir::empty();
    }
    Hir::alternation(alts)
}

/// The class of the bytes of `set` (an empty set matches nothing).
pub(crate) fn byte_class(set: ByteSet) -> Hir {
    // Runs of consecutive bytes as one range each: a class of single bytes costs
    // its canonical sort, and a new name's HIR holds hundreds of classes.
    let mut ranges = Vec::new();
    let mut b = 0u8;
    while b < 128 {
        if set.contains(b) {
            let lo = b;
            while b < 127 && set.contains(b + 1) {
                b += 1;
            }
            ranges.push(ClassBytesRange::new(lo, b));
        }
        b += 1;
    }
    Hir::class(Class::Bytes(ClassBytes::new(ranges)))
}

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

/// The whitespace class, as regex.
pub const WS: &str = "[\\t\\n\\r ]*";

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
            (Lex::Lit(a), LexKey::Lit(b)) => std::ptr::eq(a.as_str(), b.as_str()) || a.as_str() == b.as_str(),
            (Lex::Number, LexKey::Number) | (Lex::Str, LexKey::Str) => true,
            (Lex::Name { upper, exclude }, LexKey::Name(u, words)) => upper == u && (Rc::ptr_eq(exclude, words) || exclude == words),
            _ => false,
        };
        // `done` holds at most one byte: compared without a call to memcmp.
        let done = self.done_key();
        lex && done.len() == key.done.len() && done.first() == key.done.first() && self.la.map(|l| l.0) == key.la
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

    fn full(re: &str, s: &str) -> bool {
        let r = regex_automata::meta::Regex::new(&format!("^(?:{re})$")).unwrap();
        r.is_match(s)
    }

    #[test]
    fn byte_set_constants_match_their_predicates() {
        assert_eq!(IDENT, ByteSet::from_fn(is_ident_byte));
        assert_eq!(WS_BYTES, ByteSet::from_fn(is_ws));
        assert_eq!(DIGITS, ByteSet::from_fn(|b| b.is_ascii_digit()));
        assert_eq!(UPPER.union(LOWER), ByteSet::from_fn(|b| b.is_ascii_alphabetic()));
    }

    #[test]
    fn names_exclude_reserved_words() {
        let lex = Lex::Name { upper: false, exclude: Rc::new(vec!["do".into(), "done".into(), "end".into()]) };
        let re = lex.regex_rest(b"");
        for ok in ["d", "dox", "don", "doneX", "e", "en", "ends", "x1"] {
            assert!(full(&re, ok), "{ok} should match {re}");
            assert!(lex.match_len(ok.as_bytes()) == Some(ok.len()));
        }
        for bad in ["do", "done", "end", "X", "1a", ""] {
            assert!(!full(&re, bad), "{bad} should not match {re}");
        }
        let rest = lex.regex_rest(b"d");
        assert!(full(&rest, "") && full(&rest, "ox") && !full(&rest, "o") && !full(&rest, "one"));
    }

    #[test]
    fn lexeme_hirs_match_what_their_regex_matches() {
        use crate::dfa::{difference, SegDfa};
        let names = |upper, words: &[&str]| Lex::Name { upper, exclude: Rc::new(words.iter().map(|w| w.to_string()).collect()) };
        let lexes = [
            Lex::Number,
            Lex::Str,
            Lex::Lit("elseif".into()),
            names(false, &["do", "done", "end", "elseif", "else", "e"]),
            names(true, &["Damage", "DamageOfKind", "Do", "Player", "X"]),
            names(false, &[]),
        ];
        for lex in &lexes {
            for done in [&b""[..], b"d", b"e", b"D", b"1", b"\"", b"x"] {
                if !done.is_empty() && !lex.first().contains(done[0]) {
                    continue;
                }
                let regex = lex.regex_rest(done);
                let built = SegDfa::from_hir(&lex.hir_rest(done).unwrap()).unwrap();
                let parsed = SegDfa::build(&regex).unwrap();
                assert_eq!(difference(&built, &parsed), None, "{lex:?} after {done:?}: /{regex}/");
            }
        }
        // The check sees a difference.
        let wrong = SegDfa::from_hir(&names(false, &["do"]).hir_rest(b"").unwrap()).unwrap();
        assert!(difference(&wrong, &SegDfa::build(&names(false, &["do", "end"]).regex_rest(b"")).unwrap()).is_some());
    }

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
