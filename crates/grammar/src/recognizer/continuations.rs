//! Whether two recognizer states accept exactly the same continuations (byte
//! strings), decided cheaply and conservatively, so that a mask computed for one
//! state can be reused for the other (`espalier_constraint`'s `MaskMemo`), and a key
//! (hash) that such states share.
//!
//! Inside a comment, a docstring or a name, consecutive decoding steps differ only in
//! the bytes of the unfinished lexeme; [`Recognizer::same_future`] compares those and
//! so never matches there. Those bytes matter to later bytes in only two ways:
//! - a byte that ends the lexeme emits it at its last accepting point and re-reads
//!   the bytes after that point (the *rest*) before itself: irrelevant when there is
//!   no accepting point (the byte is refused), when the lexeme is accepted where it
//!   stands (the rest is empty), or when re-reading the rest is refused whatever
//!   follows it (inside a docstring past its first line, re-read as a one-line
//!   string). Otherwise the two states agree iff their states after
//!   [`Recognizer::end_lexeme`] do ([`Continuations::SameIfEndsSame`]: a docstring's
//!   first line, re-read as an unfinished one-line string);
//! - the quote that closes an f-string checks the literal's fields on its text:
//!   a lexeme whose prefix (bytes before its first quote) names an f-string must be
//!   equal byte for byte; before any quote, only whether the prefix holds `f` / `r`
//!   can matter (the body is all still to come).
//!
//! The same holds for completeness ([`Recognizer::is_complete`]): at the end of the
//! text the lexeme is ended the same way (an unterminated triple-quoted string is
//! told by the first five bytes, compared when the rest is not empty).
//!
//! Everything else that decides a continuation is compared whole: the parser (by
//! `same_parser`), the lexer DFA state and last accepting state, the acceptable set,
//! the layout layer (indentation stacks, brackets, line status, column), Go's
//! pending semicolon and a field recognizer's `lambda` refusal. The open f-string's
//! field scan (`fstring_field.rs`) is a function of the lexeme's bytes, compared
//! whole for an f-string. Offsets and lexeme counts only name positions in errors.
//! The fields are destructured without `..`: a new field of [`Recognizer`] fails to
//! compile here until it is decided.

use std::hash::Hasher;

use crate::layers::lexical_layer::LexicalLayer;
use crate::lexer_dfa::LexerDfa;
use crate::small_copy::same;
use crate::token_parser::TokenParser;

use super::Recognizer;

/// What [`Recognizer::same_continuations`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continuations {
    /// The two states accept the same continuations (and have the same completeness).
    Same,
    /// Not shown to be the same.
    Differ,
    /// Equal but for the rest a lexeme end would re-read: the same iff both states
    /// refuse [`Recognizer::end_lexeme`], or both take it and the states after it
    /// are [`Continuations::Same`].
    SameIfEndsSame,
}

/// What the f-string check at a closing quote can read of a lexeme's bytes (see the
/// module doc): the text itself for an f-string past its opening quote, else only
/// whether the prefix so far holds `f` / `r` and whether a quote was read.
#[derive(PartialEq, Eq)]
enum StringHead<'a> {
    FString(&'a [u8]),
    Other { quoted: bool, f: bool, raw: bool },
}

/// A STRING lexeme's quote comes after at most two prefix letters, so only the first
/// three bytes are looked at: a lexeme of three bytes or more without a quote among
/// them is never a STRING (not scanned: a comment may be long).
fn string_head(lexbuf: &[u8]) -> StringHead<'_> {
    let head = &lexbuf[..lexbuf.len().min(3)];
    let q = head.iter().position(|&b| b == b'\'' || b == b'"');
    if q.is_none() && lexbuf.len() >= 3 {
        return StringHead::Other { quoted: false, f: false, raw: false };
    }
    let prefix = &head[..q.unwrap_or(head.len())];
    let f = prefix.iter().any(|b| matches!(b, b'f' | b'F'));
    let raw = prefix.iter().any(|b| matches!(b, b'r' | b'R'));
    if q.is_some() && f {
        StringHead::FString(lexbuf)
    } else {
        StringHead::Other { quoted: q.is_some(), f, raw }
    }
}

/// `text.starts_with(head)`, 8 bytes per comparison (see [`same`]; a docstring's
/// text took a fifth of a reused mask's time in node).
fn starts_with(text: &[u8], head: &[u8]) -> bool {
    let Some(text) = text.get(..head.len()) else { return false };
    let (a, b) = (text.chunks_exact(8), head.chunks_exact(8));
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().expect("chunks of 8"));
    same(a.remainder(), b.remainder()) && a.zip(b).all(|(x, y)| word(x) == word(y))
}

impl<P: TokenParser> Recognizer<P> {
    /// Whether a byte that ends the unfinished lexeme would re-read bytes already
    /// read (the lexeme has an accepting point before its end): only then does
    /// [`Self::same_continuations`] need `earlier_rest_refused`.
    pub fn has_rest(&self) -> bool {
        self.last_accept != LexerDfa::DEAD && self.last_accept_len < self.lex_len
    }

    /// A hash of what [`Self::same_continuations`] compares whole (the parser by its
    /// LR stacks, as `espalier_constraint`'s memo compares it): states it can say are
    /// the same have equal keys, so a memo of many states looks at few.
    pub fn continuations_key(&self) -> u64 {
        let mut h = rustc_hash::FxHasher::default();
        for x in [self.state.as_u32(), self.last_accept.as_u32(), u32::from(self.lex_len == 0)] {
            h.write_u32(x);
        }
        self.lang.layer.hash_continuations(&self.layer, &mut h);
        std::hash::Hash::hash(&self.acceptable, &mut h);
        match string_head(&self.lexbuf) {
            StringHead::FString(_) => h.write_u8(8),
            StringHead::Other { quoted, f, raw } => {
                h.write_u8(u8::from(quoted) | u8::from(f) << 1 | u8::from(raw) << 2)
            }
        }
        for stack in self.parser.lr_stacks().unwrap_or_default() {
            h.write_usize(stack.len());
            stack.iter().for_each(|&s| h.write_u32(s.as_u32()));
        }
        h.finish()
    }

    /// The bytes `self` read after `earlier`'s, when both are in one lexeme with
    /// the same last accepting point (`self`'s pending bytes extend `earlier`'s):
    /// then `self` after [`Self::end_lexeme`] is `earlier` after it plus these bytes
    /// (where the parser and layout are the same, as
    /// [`Self::same_continuations`] checks), a cheaper way to it than re-reading
    /// the whole rest (a docstring's first line, at every step).
    pub fn read_since<'a>(&'a self, earlier: &Self) -> Option<&'a [u8]> {
        (self.last_accept == earlier.last_accept
            && self.last_accept_len == earlier.last_accept_len
            && starts_with(&self.lexbuf, &earlier.lexbuf))
        .then(|| &self.lexbuf[earlier.lexbuf.len()..])
    }

    /// Whether `self` accepts exactly the continuations `earlier` accepts (see the
    /// module doc; [`Continuations::Differ`] when unsure). `earlier_rest_refused`:
    /// whether `earlier` refuses [`Self::end_lexeme`]; it lets a state with a rest
    /// match an earlier state of the same lexeme (the same bytes up to `earlier`'s
    /// end), as every rest that extends a refused one is refused.
    pub fn same_continuations(
        &self,
        earlier: &Self,
        earlier_rest_refused: bool,
        same_parser: impl Fn(&P, &P) -> bool,
    ) -> Continuations {
        let Recognizer {
            lang,
            parser,
            state,
            lex_len,
            lex_start: _,
            last_accept,
            last_accept_len,
            lexbuf,
            pos: _,
            acceptable,
            // Compared by the layer, less what is a function of `lexbuf` (the open
            // f-string's fields, which the string head compares byte for byte for an
            // f-string past its first quote).
            layer,
            lexemes: _,
            reread: _,
        } = self;
        let Recognizer {
            lang: e_lang,
            parser: e_parser,
            state: e_state,
            lex_len: e_lex_len,
            lex_start: _,
            last_accept: e_last_accept,
            last_accept_len: e_last_accept_len,
            lexbuf: e_lexbuf,
            pos: _,
            acceptable: e_acceptable,
            layer: e_layer,
            lexemes: _,
            reread: _,
        } = earlier;
        if !(std::sync::Arc::ptr_eq(lang, e_lang)
            && state == e_state
            && last_accept == e_last_accept
            && (*lex_len == 0) == (*e_lex_len == 0)
            && acceptable == e_acceptable
            && lang.layer.same_continuations(layer, e_layer)
            && string_head(lexbuf) == string_head(e_lexbuf)
            && same_parser(parser, e_parser))
        {
            return Continuations::Differ;
        }
        let rest_inert = *last_accept == LexerDfa::DEAD
            || (*last_accept_len == *lex_len && *e_last_accept_len == *e_lex_len)
            || (earlier_rest_refused
                && last_accept_len == e_last_accept_len
                && starts_with(lexbuf, e_lexbuf));
        if rest_inert {
            Continuations::Same
        } else if self.has_rest()
            && earlier.has_rest()
            && same(&lexbuf[..lexbuf.len().min(5)], &e_lexbuf[..e_lexbuf.len().min(5)])
        {
            Continuations::SameIfEndsSame
        } else {
            Continuations::Differ
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LrParser;

    type Rec = Recognizer<LrParser>;

    fn same_lr(a: &LrParser, b: &LrParser) -> bool {
        a.stacks() == b.stacks()
    }

    /// Every byte string of length 1-3 over bytes that start, end, continue or break
    /// comments, strings (one-line and triple-quoted, f-strings and their fields),
    /// names and lines; and bytes that end a docstring's first line, then a comment
    /// or a name, then kill the triple-quoted string with a bad escape: the lexer
    /// backs up to `""` and re-reads the line, which is then valid Python.
    fn probes() -> Vec<Vec<u8>> {
        let alphabet = b"\"' #\na\xff\\{}f()=";
        let mut out: Vec<Vec<u8>> = [&b"\"#\\xZ"[..], b"\" #\\xZ", b"\"'#\\xZ", b"' #\\xZ"]
            .iter()
            .map(|p| p.to_vec())
            .collect();
        out.extend(alphabet.iter().map(|&b| vec![b]));
        for _ in 0..2 {
            let longer: Vec<Vec<u8>> = out
                .iter()
                .filter(|p| p.len() == out.last().unwrap().len())
                .flat_map(|p| alphabet.iter().map(move |&b| [&p[..], &[b]].concat()))
                .collect();
            out.extend(longer);
        }
        out
    }

    /// The memo's verdict: `SameIfEndsSame` resolved by ending both lexemes.
    fn verdict(cur: &Rec, earlier: &Rec) -> bool {
        let mut e_end = earlier.clone();
        let e_refused = earlier.has_rest() && !e_end.end_lexeme();
        match cur.same_continuations(earlier, e_refused, same_lr) {
            Continuations::Same => true,
            Continuations::Differ => false,
            Continuations::SameIfEndsSame => {
                let mut c_end = cur.clone();
                let ended = c_end.end_lexeme();
                if let (Some(extra), true, false) = (cur.read_since(earlier), ended, e_refused) {
                    let mut via = e_end.clone();
                    assert!(
                        via.try_push_bytes(extra),
                        "the lexeme end of {:?} then {extra:?} is refused",
                        earlier.remainder_bytes()
                    );
                    assert_eq!(
                        via.same_continuations(&c_end, false, same_lr),
                        Continuations::Same,
                        "a lexeme end, then the bytes read since"
                    );
                }
                match (ended, e_refused) {
                    (false, refused) => refused,
                    (true, false) => {
                        c_end.same_continuations(&e_end, false, same_lr) == Continuations::Same
                    }
                    (true, true) => false,
                }
            }
        }
    }

    /// Wherever two states of the same text (up to 12 bytes apart) are said to accept
    /// the same continuations, they accept the same probes, have the same
    /// completeness and the same key; and such pairs occur in comments, docstrings (their first line
    /// too), strings and names.
    #[test]
    fn states_said_the_same_accept_the_same_probes() {
        let lang = crate::python().expect("the Python grammar compiles");
        let text = "def f(ab):\n    \"\"\"Doc \"q\" line.\n\n    Second line\\\\ here.\n    \"\"\"\n    # comment 'x' here\n    name_long = ab  # end\n    s = 'one \"line\" str' + r'raw\\d' + b'by'\n    t = f'{ab!r:>{ab}} text' + F\"{ab}\" + rf'{ab}x'\n    u = '''tri\nple''' + \"\"\"\"\"\"\n    return s\n";
        let mut states: Vec<Rec> = vec![lang.recognizer()];
        for &b in text.as_bytes() {
            let mut s = states.last().unwrap().clone();
            assert!(s.try_push_byte(b), "the sample is Python");
            states.push(s);
        }
        let probes = probes();
        let (mut same, mut same_with_rest) = (0, 0);
        for j in 1..states.len() {
            for i in j.saturating_sub(12)..j {
                if states[j].same_continuations(&states[i], false, same_lr) != Continuations::Differ
                {
                    assert_eq!(
                        states[j].continuations_key(),
                        states[i].continuations_key(),
                        "keys at {i} and {j}"
                    );
                }
                if !verdict(&states[j], &states[i]) {
                    continue;
                }
                same += 1;
                same_with_rest += usize::from(states[j].has_rest());
                let (a, b) = (&states[i], &states[j]);
                assert_eq!(a.is_complete(), b.is_complete(), "completeness at {i} and {j}");
                for p in &probes {
                    let (mut x, mut y) = (a.clone(), b.clone());
                    assert_eq!(
                        x.try_push_bytes(p),
                        y.try_push_bytes(p),
                        "{:?} after {:?} and {:?}",
                        String::from_utf8_lossy(p),
                        &text[..i],
                        &text[..j]
                    );
                }
            }
        }
        assert!(
            same >= 400 && same_with_rest >= 40,
            "{same} pairs said the same, {same_with_rest} with a rest"
        );
    }
}
