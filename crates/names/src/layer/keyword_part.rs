//! What a token's bytes alone tell of the keyword check
//! ([`super::NamesLayer::may_end_in_a_read_keyword`]): a constraint asks it for each
//! of the vocabulary's keyword parts at every position, so the part of the answer that
//! does not depend on the text is computed once per token ([`KeywordPart::of`]).

use super::frames::set_starts;
use super::machine::{Machine, READ_KEYWORDS};
use super::token_classes::is_ident_byte;

/// A token's trailing run of identifier bytes and what it decides of the check where
/// no identifier typed before goes on with it (the token has a lead, or the text is
/// not in an identifier).
#[derive(Clone, Copy, Debug)]
pub struct KeywordPart {
    /// Where the trailing run starts.
    pub(super) run_start: usize,
    /// The run (not empty) starts a keyword of reads.
    pub(super) starts: bool,
    /// The bytes before the run are blanks (or none).
    pub(super) blank_lead: bool,
    /// A name that goes on with the run is always in scope where the run may end a
    /// keyword: a builtin, and after a blank lead an exempt name or a string prefix too
    /// (`Machine::names_go_on`'s part that does not depend on the text).
    pub(super) always_goes_on: bool,
}

impl KeywordPart {
    /// The part of `token`.
    pub fn of(token: &[u8]) -> Self {
        let run_start = token.iter().rposition(|&b| !is_ident_byte(b)).map_or(0, |i| i + 1);
        let (lead, run) = token.split_at(run_start);
        let blank_lead = lead.iter().all(|&b| b == b' ' || b == b'\t');
        let builtin = set_starts(&super::builtin_set(), run);
        Self {
            run_start,
            starts: !run.is_empty() && starts_a_read_keyword(&[], run),
            blank_lead,
            always_goes_on: builtin || (blank_lead && Machine::fixed_go_on(run)),
        }
    }

    /// Where the token's trailing run of identifier bytes starts.
    pub fn run_start(&self) -> usize {
        self.run_start
    }
}

/// Whether a keyword of reads starts with `before` followed by `run`. Compared byte by
/// byte in a loop the compiler inlines (the keywords are short; slice comparisons call
/// `memcmp` each, s43's check spent most of its time there).
pub(super) fn starts_a_read_keyword(before: &[u8], run: &[u8]) -> bool {
    READ_KEYWORDS.iter().any(|k| {
        let k = k.as_bytes();
        k.len() >= before.len() + run.len() && before.iter().chain(run).zip(k).all(|(a, b)| a == b)
    })
}
