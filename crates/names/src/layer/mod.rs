//! The names layer: the names check of Python text read one byte at a time, so that a
//! decoder can mask every token that would read a name Python cannot resolve (issue
//! 34, second part). [`NamesLayer::push_byte`] refuses a byte as soon as every text
//! continuing the bytes so far reads an unbound name (where the layer can tell: see
//! `machine.rs` for the roles of names and what stays permissive).
//!
//! Forward references: in generation ([`NamesLayer::new`]) a name is resolved against
//! what the text bound so far, so a function cannot call a helper the text has not
//! defined yet (a completion ends at the next top-level statement under HumanEval's
//! stop strings, so nothing would bind it). Checking whole files
//! ([`NamesLayer::forward`]), reads inside functions of names not bound yet are
//! allowed, as Python allows them when the module binds the name before the call.
//!
//! The layer is a byte recognizer of its own: the mask intersects it with the
//! grammar's (a token is allowed when both take all its bytes). [`VocabMask`] gives
//! the layer's verdict on a whole vocabulary at once (`vocab_mask.rs`).

/// `Clone` whose `clone_from` reuses every field's allocations (derived `Clone`
/// allocates anew): the mask copies the layer once per group of tokens and per lead
/// prefix it reads (`vocab_mask.rs`), hundreds of times per step, into reused copies.
macro_rules! clone_reusing {
    ($t:ident { $($f:ident),+ $(,)? }) => {
        impl Clone for $t {
            fn clone(&self) -> Self {
                Self { $($f: self.$f.clone()),+ }
            }
            fn clone_from(&mut self, source: &Self) {
                $(self.$f.clone_from(&source.$f);)+
            }
        }
    };
}

mod frames;
mod keyword_part;
mod lexer;
mod machine;
mod token_classes;
mod vocab_mask;

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use frames::Frames;
use keyword_part::starts_a_read_keyword;
pub use keyword_part::KeywordPart;
use lexer::{Event, Lexer};
use machine::{Machine, Sink};
pub use token_classes::TokenClasses;
pub use vocab_mask::VocabMask;

/// A name the layer refused: the name and the byte offset where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerRefusal {
    pub name: String,
    pub offset: usize,
}

/// The names layer's state after the bytes read so far.
#[derive(Debug)]
pub struct NamesLayer {
    lexer: Lexer,
    machine: Machine,
    frames: Frames,
    offset: usize,
    /// A byte was refused (generation: the text is dead).
    dead: bool,
    /// Checking whole files: every refusal is kept and reading goes on.
    record: Option<Vec<(String, usize)>>,
    events: Vec<Event>,
}

/// A copy starts with empty `events` (scratch that [`NamesLayer::push_byte`] clears).
impl Clone for NamesLayer {
    fn clone(&self) -> Self {
        Self {
            lexer: self.lexer.clone(),
            machine: self.machine.clone(),
            frames: self.frames.clone(),
            offset: self.offset,
            dead: self.dead,
            record: self.record.clone(),
            events: Vec::new(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.lexer.clone_from(&source.lexer);
        self.machine.clone_from(&source.machine);
        self.frames.clone_from(&source.frames);
        self.offset = source.offset;
        self.dead = source.dead;
        self.record.clone_from(&source.record);
    }
}

fn builtin_set() -> Arc<BTreeSet<String>> {
    static SET: OnceLock<Arc<BTreeSet<String>>> = OnceLock::new();
    SET.get_or_init(|| Arc::new(crate::builtins().into_iter().map(String::from).collect())).clone()
}

impl Default for NamesLayer {
    fn default() -> Self {
        Self::new()
    }
}

impl NamesLayer {
    /// The layer for generation: forward references refused.
    pub fn new() -> Self {
        Self {
            lexer: Lexer::new(),
            machine: Machine::new(false),
            frames: Frames::new(builtin_set()),
            offset: 0,
            dead: false,
            record: None,
            events: Vec::new(),
        }
    }

    /// The layer for reading whole files: forward references from functions allowed,
    /// every refusal kept ([`NamesLayer::refusals`]) and reading goes on after one.
    pub fn forward() -> Self {
        let mut layer = Self::new();
        layer.machine.forward = true;
        layer.record = Some(Vec::new());
        layer
    }

    /// Reads one byte; `false` (the state then dead) when every continuation reads
    /// an unbound name.
    pub fn push_byte(&mut self, b: u8) -> bool {
        if self.dead {
            return false;
        }
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        self.lexer.push(b, &mut events);
        let ok = self.handle(&events);
        self.events = events;
        self.offset += 1;
        ok
    }

    /// Whether the layer takes `bytes` without reading them: inside a comment or a
    /// string body, bytes that do not end it cause no event, so nothing can be refused
    /// (the mask's fast path: most tokens a docstring allows). `false` means "read
    /// them" ([`NamesLayer::push_bytes`] on a copy), not "refused".
    pub fn takes_inertly(&self, bytes: &[u8]) -> bool {
        !self.dead
            && self
                .lexer
                .inert_stops()
                .is_some_and(|[a, b]| !bytes.iter().any(|&c| c == a || c == b))
    }

    /// The bytes at which a token without identifier bytes may be refused from here
    /// (a 256-bit set; `None`: any byte may), see `Machine::refusing_bytes`. An
    /// operator not ended yet ends at any byte: any byte may then refuse where the
    /// operator may decide a name (`Machine::waits_on_operator`).
    pub(crate) fn refusing_bytes(&self) -> Option<[u64; 4]> {
        if self.dead
            || self.lexer.in_ident()
            || (self.lexer.in_op() && self.machine.waits_on_operator())
        {
            return None;
        }
        let set = self.machine.refusing_bytes(&self.frames)?;
        // In a comment or a string body nothing happens before a byte that ends it.
        match self.lexer.inert_stops() {
            Some([a, b]) if set != [0; 4] => {
                let mut stops = [0u64; 4];
                for c in [a, b] {
                    stops[c as usize / 64] |= 1 << (c % 64);
                }
                Some(stops)
            }
            _ => Some(set),
        }
    }

    /// Whether the layer takes all of `bytes` (the verdict [`NamesLayer::push_bytes`]
    /// gives, for a mask: the state after is only good for dropping). Cheaper: an
    /// identifier's prefix check runs once at the end of the bytes instead of at every
    /// byte (a prefix of a viable prefix is viable).
    pub fn takes(&mut self, bytes: &[u8]) -> bool {
        if self.takes_inertly(bytes) {
            return true;
        }
        self.machine.lazy = true;
        let ok = self.push_bytes(bytes);
        let mut sink = Sink { record: None, refused: false };
        self.machine.end_lazy(&self.lexer, &self.frames, &mut sink);
        ok && !sink.refused
    }

    /// Reads `bytes`; `false` at the first refused byte.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> bool {
        bytes.iter().all(|&b| self.push_byte(b))
    }

    /// Where the text ends inside an identifier that only keywords of reads may
    /// complete (see `Machine::keyword_rests`): the rest of each such keyword; empty
    /// otherwise. A constraint keeps the text only where its grammar takes one of them.
    pub fn keyword_rests(&self) -> Vec<&'static [u8]> {
        self.keyword_rests_typing(&[])
    }

    /// [`NamesLayer::keyword_rests`] after the ASCII identifier bytes `more` are read
    /// too, without reading them: they only extend the identifier being typed (its
    /// context was set at its first byte) and, where the layer takes them, change
    /// nothing else it holds.
    pub fn keyword_rests_typing(&self, more: &[u8]) -> Vec<&'static [u8]> {
        if self.dead || !self.lexer.in_ident() {
            return Vec::new();
        }
        if more.is_empty() {
            return self.machine.keyword_rests(self.lexer.ident(), &self.frames);
        }
        let typed = [self.lexer.ident(), more].concat();
        self.machine.keyword_rests(&typed, &self.frames)
    }

    /// Whether the text ends inside an identifier (which identifier bytes extend).
    pub fn types_an_identifier(&self) -> bool {
        !self.dead && self.lexer.in_ident()
    }

    /// Reads `lead` (bytes the layer takes, ending outside an identifier or where
    /// none is being typed) and a stand-in identifier byte on this copy, without the
    /// identifier's prefix check: then [`NamesLayer::keyword_rests_of_run`] answers for
    /// every run of identifier bytes after `lead` (an identifier's first byte moves
    /// the layer the same way whichever letter it is; `vocab_mask.rs` relies on the
    /// same). `false` where the layer refuses `lead`.
    pub fn read_lead_of_a_run(&mut self, lead: &[u8]) -> bool {
        self.machine.lazy = true;
        self.push_bytes(lead) && self.push_byte(b'a')
    }

    /// On a copy that read a lead ([`NamesLayer::read_lead_of_a_run`]): the rests
    /// [`NamesLayer::keyword_rests`] gives after the lead and the ASCII letters `run`.
    pub fn keyword_rests_of_run(&self, run: &[u8]) -> Vec<&'static [u8]> {
        if self.dead || !self.lexer.in_ident() {
            return Vec::new();
        }
        let ident = self.lexer.ident();
        let typed = [&ident[..ident.len() - 1], run].concat();
        self.machine.keyword_rests(&typed, &self.frames)
    }

    /// Where `token`'s trailing run of identifier bytes starts (`token.len()` when it
    /// ends in another byte).
    pub fn trailing_run_start(token: &[u8]) -> usize {
        token.iter().rposition(|&b| !token_classes::is_ident_byte(b)).map_or(0, |i| i + 1)
    }

    /// Whether the text may end inside a prefix of a keyword of reads after `token`:
    /// the identifier it would end in (the one being typed and `token`, or `token`'s
    /// trailing run) starts one that some expressions do not take
    /// (`machine::READ_KEYWORDS`). Cheap (no copy of the layer), and `false` only
    /// where [`NamesLayer::keyword_rests`] after `token` gives none or only keywords
    /// every read position takes.
    pub fn may_end_in_a_read_keyword(&self, token: &[u8]) -> bool {
        self.may_end_in_keyword_part(token, &KeywordPart::of(token))
    }

    /// [`NamesLayer::may_end_in_a_read_keyword`] for `token`, whose [`KeywordPart`]
    /// `part` (computed once per vocabulary) answers what its bytes alone decide.
    pub fn may_end_in_keyword_part(&self, token: &[u8], part: &KeywordPart) -> bool {
        if self.takes_inertly(token) {
            // The token stays inside a comment or a string's body: no identifier.
            return false;
        }
        let run = &token[part.run_start..];
        if part.run_start == 0 && self.lexer.in_ident() {
            // The token goes on with the identifier typed (no lead: no scope closes).
            let before = self.lexer.ident();
            if run.is_empty() || !starts_a_read_keyword(before, run) {
                return false;
            }
            return !self.machine.names_go_on(&[before, run].concat(), &self.frames);
        }
        // Blanks before the run (or none) change no scope: the names in scope now say
        // whether a name goes on with the run. Other bytes may close a scope (a
        // lambda's, a comprehension's): only the builtins stay in every scope.
        if !part.starts || part.always_goes_on {
            return false;
        }
        !part.blank_lead || !self.machine.names_go_on(run, &self.frames)
    }

    /// Whether `token` may type part of a keyword of reads (see
    /// [`NamesLayer::keyword_rests`]): its trailing run of identifier bytes is found
    /// inside one of them (` yi`, `ield`, `(not`). A constraint checks
    /// [`NamesLayer::keyword_rests`] after these tokens only.
    pub fn may_type_a_read_keyword(token: &[u8]) -> bool {
        let run = &token[Self::trailing_run_start(token)..];
        !run.is_empty()
            && machine::READ_KEYWORDS
                .iter()
                .any(|k| k.as_bytes().windows(run.len()).any(|w| w == run))
    }

    /// Whether the text may end here: its last statement's undecided names resolve
    /// (the statement ends as a newline would end it).
    pub fn may_end(&self) -> bool {
        let mut end = self.clone();
        end.record = None;
        if !end.push_byte(b'\n') {
            return false;
        }
        let mut sink = Sink { record: None, refused: false };
        end.machine.end_statement(&mut end.frames, &mut sink);
        !sink.refused
    }

    /// How many names the text owes: read (or possibly read) where no scope binds
    /// them, waiting for what may still bind them (a comprehension's `for`, an `=`);
    /// 0 when none (`machine/obligations.rs`).
    pub fn owed(&self) -> usize {
        self.machine.owed(&self.lexer, &self.frames)
    }

    /// Texts that may settle what the text owes (` for x in ()`, ` = 0`, the rest of
    /// a name being typed, ...), most specific first; each is only offered: written
    /// next it may still be refused by the grammar or the layer, or settle nothing
    /// (compare [`NamesLayer::owed`] after it). Empty when nothing is owed.
    pub fn settlements(&self) -> Vec<Vec<u8>> {
        if self.dead {
            return Vec::new();
        }
        self.machine.settlements(&self.lexer, &self.frames)
    }

    /// Moves the bindings made since the last call into the shared frames (call after
    /// a commit: the mask's copies then share them).
    pub fn settle(&mut self) {
        self.frames.settle();
    }

    /// The names a read sees at the end of the text (innermost scope first, builtins
    /// left out), for the inspector.
    pub fn names_in_scope(&self) -> Vec<String> {
        self.frames.in_scope()
    }

    /// The refusals kept (reading whole files, [`NamesLayer::forward`]).
    pub fn refusals(&self) -> Vec<LayerRefusal> {
        self.record
            .iter()
            .flatten()
            .map(|(name, offset)| LayerRefusal { name: name.clone(), offset: *offset })
            .collect()
    }

    /// Reads the end of a whole file (what a final newline resolves).
    pub fn finish(&mut self) {
        let mut events = Vec::new();
        self.lexer.finish(&mut events);
        self.handle(&events);
        let mut sink = Sink { record: self.record.as_mut(), refused: false };
        self.machine.end_statement(&mut self.frames, &mut sink);
    }

    fn handle(&mut self, events: &[Event]) -> bool {
        let mut sink = Sink { record: self.record.as_mut(), refused: false };
        for &ev in events {
            self.machine.event(ev, &self.lexer, &mut self.frames, self.offset, &mut sink);
        }
        if sink.refused && self.record.is_none() {
            self.dead = true;
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests;
