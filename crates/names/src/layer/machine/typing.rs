//! The identifier being typed and what the vocabulary mask asks of the machine: a
//! read's prefix check ([`Machine::check_typed`]), the bytes at which a token may be
//! refused from here, the names a typed read may still become, and the keyword rests
//! of a typed prefix.

use super::super::frames::Frames;
use super::super::lexer::Lexer;
use super::words::{read_exempt, EXEMPT, READ_KEYWORDS, STRING_PREFIXES};
use super::{Bracket, Ctx, Machine, Sink};

impl Machine {
    /// The identifier typed so far, in a read: refused when no bound name, keyword or
    /// string prefix starts with it.
    ///
    /// The check is on bytes: an identifier ending inside a UTF-8 character (a token
    /// may end there) is viable only where a name goes on with those very bytes, else
    /// no text continuing it reads a bound name.
    pub(super) fn check_typed(&self, lexer: &Lexer, frames: &Frames, sink: &mut Sink<'_>) {
        if self.ctx == Ctx::Read && self.restricts(frames) {
            let typed = lexer.ident();
            if !self.prefix_viable(typed, frames) {
                sink.refuse(valid_prefix(typed), self.ident_at);
            }
        }
    }

    /// The end of a lazily read run of bytes: the identifier's prefix check that
    /// waited (the prefixes of a viable prefix are viable, so checking the last one
    /// decides for all).
    pub(crate) fn end_lazy(&mut self, lexer: &Lexer, frames: &Frames, sink: &mut Sink<'_>) {
        if std::mem::take(&mut self.ident_due) {
            self.check_typed(lexer, frames, sink);
        }
        self.lazy = false;
    }

    /// Whether a prefix check waits for the end of a lazily read run (an identifier
    /// byte came since the last whole name).
    pub(crate) fn ident_due(&self) -> bool {
        self.ident_due
    }

    /// The bytes at which a token without identifier bytes may be refused from here
    /// (a 256-bit set), or `None` where any byte may (an identifier's check is due).
    /// Every refusal is of a name typed or waiting: a name waiting for its role learns
    /// it at the next significant byte (any but blanks; none where every role it may
    /// take passes, see [`decided_harmlessly`]), a statement's possible targets at `=`
    /// or the statement's end, a bracket's waiting reads at its commas and its close.
    pub(crate) fn refusing_bytes(&self, frames: &Frames) -> Option<[u64; 4]> {
        if self.ident_due {
            return None;
        }
        let mut set = [0u64; 4];
        let mut add = |bytes: [u64; 4]| {
            for (s, b) in set.iter_mut().zip(bytes) {
                *s |= b;
            }
        };
        let waiting = [
            self.awaiting.as_ref().map(|a| &a.name),
            self.aug_target.as_ref().map(|t| &t.name),
            self.bind_target.as_ref().map(|t| &t.name),
        ];
        if waiting.into_iter().flatten().any(|n| !decided_harmlessly(n, frames)) {
            add(SIGNIFICANT);
        }
        if !self.segment.is_empty() {
            add(byte_set(b"=\n;"));
        }
        if self.brackets.iter().any(|b| !b.pending.is_empty()) {
            add(byte_set(b",)]}"));
        }
        Some(set)
    }

    /// Whether an operator may decide a name waiting here (its role, an augmented or
    /// plain assignment's target).
    pub(crate) fn waits_on_operator(&self) -> bool {
        self.awaiting.is_some() || self.aug_target.is_some() || !self.segment.is_empty()
    }

    /// Whether the identifier being typed is checked as typed: a read, where reads
    /// are restricted ([`Machine::check_typed`]).
    pub(crate) fn checks_typed(&self, frames: &Frames) -> bool {
        self.ctx == Ctx::Read && self.restricts(frames)
    }

    /// The names bound in the scopes the text is in that are not frames: the targets
    /// of the comprehensions and the parameters of the lambdas being read (names a
    /// typed read may start).
    pub(crate) fn local_names(&self) -> impl Iterator<Item = &str> {
        self.brackets
            .iter()
            .filter(|b| b.sees_targets())
            .flat_map(|b| b.comp_targets.iter().map(String::as_str))
            .chain(self.lambda_params.iter().map(|(_, n)| n.as_str()))
    }

    /// Whether reads are checked as they are typed here.
    pub(super) fn restricts(&self, frames: &Frames) -> bool {
        !(self.brackets.iter().any(Bracket::may_comprehend)
            || (self.forward && frames.in_function())
            || (self.lambda_body.is_some() && !self.assigning.is_empty()))
    }

    /// The names a typed read may start besides the frames' and the comprehensions'
    /// (the keywords of reads, soft keywords and exempt names, string prefixes in
    /// every case).
    pub(crate) fn fixed_names() -> Vec<String> {
        let mut out: Vec<String> =
            READ_KEYWORDS.iter().chain(read_exempt()).map(|k| k.to_string()).collect();
        for p in STRING_PREFIXES {
            let n = p.len();
            for cases in 0..1u32 << n {
                let variant = p
                    .chars()
                    .enumerate()
                    .map(|(i, c)| if cases >> i & 1 == 1 { c.to_ascii_uppercase() } else { c })
                    .collect();
                out.push(variant);
            }
        }
        out
    }

    /// Whether some keyword of reads, exempt name, string prefix, bound name or comprehension
    /// target starts with the bytes `typed` (not always whole UTF-8).
    pub(super) fn prefix_viable(&self, typed: &[u8], frames: &Frames) -> bool {
        let starts = |k: &str| k.as_bytes().starts_with(typed);
        READ_KEYWORDS.iter().chain(read_exempt()).chain(STRING_PREFIXES).any(|k| starts(k))
            || STRING_PREFIXES.iter().any(|k| k.as_bytes().eq_ignore_ascii_case(typed))
            || frames.resolves_prefix(typed)
            || self.local_names().any(starts)
    }

    /// The rests of the keywords that alone keep the identifier being typed (`typed`,
    /// a checked read) viable: no bound name, local, exempt name or string prefix
    /// starts with it. Empty when something else may follow, or when the identifier is
    /// not checked as typed. Which keyword the grammar takes depends on where the read
    /// stands (`x and not y` is Python, `x + not y` is not; `y = yield`, but not
    /// `x and yield`), which the layer does not follow: the constraint asks the grammar
    /// (MBPP/298 typed `... and yi`, whose only way on was `yield`: a dead end).
    pub(crate) fn keyword_rests(&self, typed: &[u8], frames: &Frames) -> Vec<&'static [u8]> {
        if !self.checks_typed(frames) || self.names_go_on(typed, frames) {
            return Vec::new();
        }
        READ_KEYWORDS
            .iter()
            .filter(|k| k.as_bytes().starts_with(typed))
            .map(|k| &k.as_bytes()[typed.len()..])
            .collect()
    }

    /// Whether something other than a keyword of reads starts with `typed`: a bound
    /// name, a comprehension's or lambda's, an exempt name or a string prefix.
    pub(crate) fn names_go_on(&self, typed: &[u8], frames: &Frames) -> bool {
        Self::fixed_go_on(typed)
            || frames.resolves_prefix(typed)
            || self.local_names().any(|k| k.as_bytes().starts_with(typed))
    }

    /// Whether an exempt name or a string prefix (names in every scope besides the
    /// builtins) goes on with `typed` ([`Machine::names_go_on`]'s fixed part).
    pub(crate) fn fixed_go_on(typed: &[u8]) -> bool {
        read_exempt().chain(STRING_PREFIXES).any(|k| k.as_bytes().starts_with(typed))
            || STRING_PREFIXES.iter().any(|k| k.as_bytes().eq_ignore_ascii_case(typed))
    }
}

/// Whether every role a waiting name may take passes: a read (it resolves) and an
/// assignment (never an UnboundLocalError: not in a function, or bound there), then
/// or later in the statement.
pub(super) fn decided_harmlessly(name: &str, frames: &Frames) -> bool {
    EXEMPT.contains(&name) || (frames.resolves(name) && !frames.assignment_may_unbind(name))
}

/// `bytes` as a 256-bit set.
const fn byte_set(bytes: &[u8]) -> [u64; 4] {
    let mut set = [0u64; 4];
    let mut i = 0;
    while i < bytes.len() {
        set[bytes[i] as usize / 64] |= 1 << (bytes[i] % 64);
        i += 1;
    }
    set
}

/// Every byte but blanks (which cause no event).
pub(super) const SIGNIFICANT: [u64; 4] = {
    let blanks = byte_set(b" \t\x0c\r");
    [!blanks[0], !blanks[1], !blanks[2], !blanks[3]]
};

/// The longest UTF-8 prefix of `bytes` (an identifier may end inside a character).
pub(super) fn valid_prefix(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
    }
}
