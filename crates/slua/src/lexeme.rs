//! Lexemes: the unit every parser node asks for, and how one becomes (part of) a
//! segment regex.
//!
//! A *segment* is optional leading whitespace, one lexeme and, where the lexeme could
//! be extended into another (`x` / `xy`, `<` / `<=`, `1` / `1.5`), one *look-ahead*
//! character drawn from exactly the characters that can start what follows. The
//! look-ahead makes every segment regex non-extensible (A1): a match ends either at a
//! lexeme that no other lexeme extends, or at a character that cannot continue it. The
//! look-ahead character is carried into the next segment, whose regex is then the
//! derivative by that character ([`crate::alt::Alt::after`]).
//!
//! Beside it: the byte classes ([`crate::byte_set`]), the text of literal lexemes
//! ([`crate::text`]) and a segment's alternatives ([`crate::alt`]).

use std::rc::Rc;

use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, Hir, Repetition};

use crate::byte_set::{is_ident_byte, ByteSet, DIGITS, IDENT, LOWER, UPPER};
use crate::scoped_names::ScopedNames;
use crate::text::Text;

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

pub use crate::regex_escape::escape;

impl Lex {
    /// Whether another lexeme could extend this one, so a look-ahead must end it.
    pub fn extensible(&self) -> bool {
        match self {
            Lex::Lit(s) => {
                s.bytes().last().is_some_and(is_ident_byte)
                    || matches!(s.as_str(), "<" | ">" | "=" | "." | "-")
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
                let (words, first, allow_empty) = name_rest(*upper, exclude, done);
                format!("(?:{})", complement(&words, first, allow_empty))
            }
        }
    }

    /// [`Lex::regex_rest`] as HIR, built without writing or parsing a regex (cold
    /// segments are built from these, see [`crate::dfa`]); `None` for names in scope.
    pub(crate) fn hir_rest(&self, done: &[u8]) -> Option<Hir> {
        let star = |h: Hir| {
            Hir::repetition(Repetition { min: 0, max: None, greedy: true, sub: Box::new(h) })
        };
        let plus = |h: Hir| {
            Hir::repetition(Repetition { min: 1, max: None, greedy: true, sub: Box::new(h) })
        };
        Some(match self {
            Lex::Lit(s) => Hir::literal(s.as_bytes()[done.len()..].to_vec()),
            Lex::Scoped(_) => return None,
            Lex::Number => {
                let digits = || byte_class(DIGITS);
                let fraction = Hir::concat(vec![Hir::literal(*b"."), plus(digits())]);
                let fraction = Hir::repetition(Repetition {
                    min: 0,
                    max: Some(1),
                    greedy: true,
                    sub: Box::new(fraction),
                });
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
                let escaped = Hir::concat(vec![
                    Hir::literal(*b"\\"),
                    byte_class(
                        ByteSet::byte(b'"').union(ByteSet::byte(b'\\')).union(ByteSet::byte(b'n')),
                    ),
                ]);
                let body = Hir::concat(vec![
                    star(Hir::alternation(vec![plain, escaped])),
                    Hir::literal(*b"\""),
                ]);
                if done.is_empty() {
                    Hir::concat(vec![Hir::literal(*b"\""), body])
                } else {
                    body
                }
            }
            Lex::Name { upper, exclude } => {
                let (words, first, allow_empty) = name_rest(*upper, exclude, done);
                complement_hir(&words, first, allow_empty)
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
        (first.is_none_or(|c| text.as_bytes().first() == Some(&c))
            && self.match_len(text.as_bytes()) == Some(text.len()))
        .then_some(text)
    }
}

/// What the rest of a name after `done` (empty or its first byte) must not spell
/// (the excluded words that start with `done`, less it), the class of its next byte,
/// and whether it may be empty: the arguments of [`complement`] and [`complement_hir`].
fn name_rest<'w>(
    upper: bool,
    exclude: &'w [String],
    done: &[u8],
) -> (Vec<&'w [u8]>, ByteSet, bool) {
    let words = exclude.iter().map(|w| w.as_bytes());
    if done.is_empty() {
        (words.collect(), if upper { UPPER } else { LOWER }, false)
    } else {
        (words.filter(|w| w.first() == done.first()).map(|w| &w[1..]).collect(), IDENT, true)
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
        let rest: Vec<&[u8]> =
            words.iter().filter(|w| w.first() == Some(&c)).map(|w| &w[1..]).collect();
        alts.push(format!(
            "{}(?:{})",
            escape(&(c as char).to_string()),
            complement(&rest, ident, true)
        ));
    }
    alts.join("|")
}

/// The first bytes of `words` that `first` allows (sorted, once each), and the rest of
/// `first`: the branches of [`complement`] and [`complement_hir`].
fn first_bytes(words: &[&[u8]], first: ByteSet) -> (Vec<u8>, ByteSet) {
    let mut children: Vec<u8> =
        words.iter().filter_map(|w| w.first().copied()).filter(|c| first.contains(*c)).collect();
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
        let rest = Hir::repetition(Repetition {
            min: 0,
            max: None,
            greedy: true,
            sub: Box::new(byte_class(IDENT)),
        });
        alts.push(Hir::concat(vec![byte_class(other), rest]));
    }
    for c in children {
        let rest: Vec<&[u8]> =
            words.iter().filter(|w| w.first() == Some(&c)).map(|w| &w[1..]).collect();
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Whether regex `re` matches the whole of `s` (also used by `alt.rs`'s tests).
    pub(crate) fn full(re: &str, s: &str) -> bool {
        let r = regex_automata::meta::Regex::new(&format!("^(?:{re})$")).unwrap();
        r.is_match(s)
    }

    #[test]
    fn names_exclude_reserved_words() {
        let lex = Lex::Name {
            upper: false,
            exclude: Rc::new(vec!["do".into(), "done".into(), "end".into()]),
        };
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
        let names = |upper, words: &[&str]| Lex::Name {
            upper,
            exclude: Rc::new(words.iter().map(|w| w.to_string()).collect()),
        };
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
        assert!(difference(
            &wrong,
            &SegDfa::build(&names(false, &["do", "end"]).regex_rest(b"")).unwrap()
        )
        .is_some());
    }
}
