//! The vocabulary's tokens that an f-string's replacement fields may decide
//! differently from the field's nested recognizer ([`FieldTokens`], built once per
//! trie with the kit), and where in a field the text stands ([`Spot`]), which says
//! which of them a field's mask must re-check in full (see [`super::fstring_layer`]).

use espalier_grammar::recognizer::FieldExprView;

use crate::{TokTrie, Vocab};

/// Byte classes that can make a field refuse what its nested recognizer takes.
pub(super) const QUOTE: u8 = 1;
pub(super) const BACKSLASH: u8 = 2;
pub(super) const HASH: u8 = 4;
pub(super) const NEWLINE: u8 = 8;
pub(super) const OPEN_BRACE: u8 = 16;
pub(super) const CLOSE_BRACE: u8 = 32;
pub(super) const CLOSER: u8 = 64; // `)` `]`
pub(super) const BREAK: u8 = 128; // `:` `!` `=`

pub(super) fn class(b: u8) -> u8 {
    match b {
        b'"' | b'\'' => QUOTE,
        b'\\' => BACKSLASH,
        b'#' => HASH,
        b'\n' | b'\r' => NEWLINE,
        b'{' => OPEN_BRACE,
        b'}' => CLOSE_BRACE,
        b')' | b']' => CLOSER,
        b':' | b'!' | b'=' => BREAK,
        _ => 0,
    }
}

/// A token with a byte of some class.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cand {
    pub(super) id: u32,
    pub(super) start: u32,
    pub(super) bits: u8,
    /// The largest count of closers minus openers before a byte that acts at the
    /// field's depth 0 (`:` `!` `=` `}` `)` `]`): the token can reach depth 0 with
    /// such a byte from depth `d` iff `reach >= d` (`i16::MIN`: no such byte).
    pub(super) reach: i16,
    /// Index of its bytes before the first classed byte in `prefixes` (`NONE` when
    /// that part is empty).
    pub(super) prefix: u32,
    /// Opens an f-string (a quote after `f`-prefix letters) with classed bytes after.
    pub(super) own: bool,
    /// Starts with up to two prefix letters and a quote, with `{` `}` `\` after it.
    pub(super) lead_quote: bool,
    /// Starts with `N`.
    pub(super) n_first: bool,
}

pub(super) const NONE: u32 = u32::MAX;

/// The vocabulary's tokens that f-string fields may decide differently from their
/// nested recognizer (built from the trie with the kit).
#[derive(Debug)]
pub(crate) struct FieldTokens {
    pub(super) cands: Vec<Cand>,
    pub(super) bytes: Vec<u8>,
    /// The distinct bytes before the first classed byte, as a trie.
    pub(super) prefixes: TokTrie,
    pub(super) n_prefixes: usize,
    /// Indices into `cands`: tokens with `{` `}` `\` or `N` first (literal text),
    /// tokens opening an f-string with field bytes, tokens starting with a quote
    /// (after at most two prefix letters) with field bytes.
    pub(super) literal: Vec<u32>,
    pub(super) own: Vec<u32>,
    pub(super) lead: Vec<u32>,
}

impl FieldTokens {
    pub(crate) fn new(trie: &TokTrie) -> Self {
        let mut cands = Vec::new();
        let mut bytes = Vec::new();
        let mut prefix_ids: std::collections::HashMap<Vec<u8>, u32> =
            std::collections::HashMap::new();
        let mut prefix_list: Vec<Vec<u8>> = Vec::new();
        let mut add = |id: u32, tok: &[u8]| {
            let bits = tok.iter().fold(0u8, |a, &b| a | class(b));
            if bits == 0 && tok.first() != Some(&b'N') {
                return; // (`N` first: after a `\\` in literal text, `\\N` needs `{`)
            }
            let first = tok.iter().position(|&b| class(b) != 0).unwrap_or(tok.len());
            let prefix = if first == 0 || first == tok.len() {
                NONE
            } else {
                let p = tok[..first].to_vec();
                let n = prefix_list.len() as u32;
                *prefix_ids.entry(p.clone()).or_insert_with(|| {
                    prefix_list.push(p);
                    n
                })
            };
            let (mut r, mut reach) = (0i16, i16::MIN);
            for &b in tok {
                if class(b) & (CLOSE_BRACE | CLOSER | BREAK) != 0 {
                    reach = reach.max(r);
                }
                match b {
                    b')' | b']' | b'}' => r += 1,
                    b'(' | b'[' | b'{' => r -= 1,
                    _ => {}
                }
            }
            let field_bytes = |from: usize| {
                tok[from..].iter().any(|&b| class(b) & (OPEN_BRACE | CLOSE_BRACE | BACKSLASH) != 0)
            };
            let own = (0..tok.len()).any(|i| {
                is_quote(tok[i]) && fstring_prefix_before(&tok[..i]) && field_bytes(i + 1)
            });
            let letters = tok.iter().take_while(|&&b| is_prefix_letter(b)).count();
            let lead_quote = letters <= 2
                && tok.get(letters).copied().is_some_and(is_quote)
                && field_bytes(letters + 1);
            let n_first = tok.first() == Some(&b'N');
            cands.push(Cand {
                id,
                start: bytes.len() as u32,
                bits,
                reach,
                prefix,
                own,
                lead_quote,
                n_first,
            });
            bytes.extend_from_slice(tok);
        };
        for (id, tok) in trie_tokens(trie) {
            add(id, &tok);
        }
        let sentinel = bytes.len() as u32;
        cands.push(Cand {
            id: NONE,
            start: sentinel,
            bits: 0,
            reach: 0,
            prefix: NONE,
            own: false,
            lead_quote: false,
            n_first: false,
        });
        let pick = |f: &dyn Fn(&Cand) -> bool| {
            (0..cands.len() - 1).filter(|&k| f(&cands[k])).map(|k| k as u32).collect::<Vec<u32>>()
        };
        let literal = pick(&|c| c.bits & (OPEN_BRACE | CLOSE_BRACE | BACKSLASH) != 0 || c.n_first);
        let own = pick(&|c| c.own);
        let lead = pick(&|c| c.lead_quote);
        let n_prefixes = prefix_list.len();
        let prefixes = TokTrie::new(&Vocab::new(prefix_list, &[], u32::MAX));
        FieldTokens { cands, bytes, prefixes, n_prefixes, literal, own, lead }
    }

    pub(super) fn bytes_of(&self, k: usize) -> &[u8] {
        &self.bytes[self.cands[k].start as usize..self.cands[k + 1].start as usize]
    }

    pub(super) fn len(&self) -> usize {
        self.cands.len() - 1
    }
}

/// Every (id, bytes) of the trie's tokens (duplicates aside: one id per byte string)
/// that hold a classed byte or start with `N`: one preorder pass, copying only those.
fn trie_tokens(trie: &TokTrie) -> Vec<(u32, Vec<u8>)> {
    let mut out = Vec::new();
    let mut path: Vec<u8> = Vec::new();
    // Per depth: subtree end and the classes of the path down to it.
    let mut ends: Vec<(usize, u8)> = Vec::new();
    let n = trie.node_count();
    for i in 1..n {
        while ends.last().is_some_and(|&(e, _)| e <= i) {
            ends.pop();
            path.pop();
        }
        let (byte, tok, size, _) = trie.node_info(i);
        let bits = ends.last().map_or(0, |&(_, b)| b) | class(byte);
        path.push(byte);
        ends.push((i + size, bits));
        if tok != u32::MAX && (bits != 0 || path[0] == b'N') {
            out.push((tok, path.clone()));
        }
    }
    out.extend(trie.long_tokens().iter().cloned());
    out
}

fn is_quote(b: u8) -> bool {
    b == b'"' || b == b'\''
}

fn is_prefix_letter(b: u8) -> bool {
    matches!(b, b'f' | b'F' | b'r' | b'R')
}

/// Whether the bytes before a quote end in string prefix letters holding an `f`.
fn fstring_prefix_before(before: &[u8]) -> bool {
    let letters = before.iter().rev().take_while(|&&b| is_prefix_letter(b)).count().min(2);
    before[before.len() - letters..].iter().any(|&b| b == b'f' || b == b'F')
}

/// Where a field's expression stands, for [`Spot::special`] (a [`FieldExprView`]
/// without its recognizer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spot {
    pub(super) depth: u32,
    pub(super) in_string: bool,
    pub(super) open_brace: bool,
    pub(super) triple: bool,
}

impl Spot {
    pub(super) fn of(v: &FieldExprView<'_>) -> Self {
        Spot { depth: v.depth, in_string: v.in_string, open_brace: v.open_brace, triple: v.triple }
    }

    /// The spot right after a level-0 `{` (where the nested recognizer is fresh), in
    /// a one-quote or (`triple`) a triple-quoted literal.
    pub(crate) fn field_start(triple: bool) -> Self {
        Spot { depth: 0, in_string: false, open_brace: true, triple }
    }

    /// The spot inside a field's expression at bracket depth 0, outside strings.
    pub(crate) fn in_expression(triple: bool) -> Self {
        Spot { depth: 0, in_string: false, open_brace: false, triple }
    }

    /// Whether candidate `c` may be decided differently by the field than by the
    /// nested recognizer here.
    pub(super) fn special(&self, c: &Cand) -> bool {
        c.bits & (QUOTE | BACKSLASH) != 0
            || (!self.triple && c.bits & NEWLINE != 0)
            || (self.open_brace && c.bits & OPEN_BRACE != 0)
            || (!self.in_string && (c.bits & HASH != 0 || c.reach >= self.depth as i16))
    }
}

/// Whether `c`'s first classed byte (after its prefix) surely makes the field refuse it.
pub(super) fn surely_refused(c: &Cand, bytes: &[u8], v: &Spot) -> bool {
    let Some(k) = bytes.iter().position(|&b| class(b) != 0) else { return false };
    if !v.triple && c.bits & NEWLINE != 0 {
        // A newline in a one-quote literal, before any quote could have closed it.
        let q = bytes.iter().position(|&b| is_quote(b)).unwrap_or(bytes.len());
        if bytes[..q].iter().any(|&b| class(b) == NEWLINE) {
            return true;
        }
    }
    let openers = bytes[..k].iter().filter(|&&b| matches!(b, b'(' | b'[' | b'{')).count();
    match class(bytes[k]) {
        BACKSLASH => true,
        HASH => !v.in_string,
        NEWLINE => !v.triple,
        CLOSER => !v.in_string && v.depth == 0 && openers == 0,
        _ => false,
    }
}
