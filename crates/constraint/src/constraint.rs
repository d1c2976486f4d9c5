//! The central interface between a generation loop and a constraint.

use serde::{Deserialize, Serialize};

use crate::{TokenSet, Vocab};

/// What may come next at one point of generation. Implemented by the grammar
/// constraints (Python, Go, fill-in-the-middle) and by the sLua tree of parsers, so
/// that the decode loop, the CLI and the web app treat them alike. `Clone` is a
/// snapshot: the driver clones to try a token or to step back.
pub trait Constraint: Clone {
    /// Bytes fed so far form a complete program (EOS may be sampled).
    fn is_complete(&self) -> bool;
    /// Cheap check for adaptive rejection: may `bytes` come next?
    fn allows(&self, bytes: &[u8]) -> bool;
    /// The exact set of vocabulary tokens that may come next; sets the EOS token's
    /// bit exactly when [`Constraint::is_complete`] holds. Special tokens other than
    /// EOS are never allowed.
    fn fill_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet);
    /// Commit the bytes of a sampled token; may ask the driver to heal (roll the
    /// token back and re-sample with a forced prefix).
    fn commit(&mut self, bytes: &[u8]) -> Result<Commit, Rejected>;
    /// What the visualizer draws: parser tree, current regex, accept sequences,
    /// remainder.
    fn inspect(&self) -> Inspection;
    /// The finishing mask, for the decoder's wrap-up: fills `mask` with the tokens that
    /// strictly shorten the shortest way to a complete program (EOS when complete) and
    /// returns `true`, or returns `false` (mask untouched) when the constraint has no
    /// such notion. Never leaves `mask` empty when it returns `true` unless the
    /// constraint is at a dead end.
    fn fill_finishing_mask(&mut self, _vocab: &Vocab, _mask: &mut TokenSet) -> bool {
        false
    }
    /// How many tokens the finishing mask needs at most from here: an upper bound on
    /// the steps a wrap-up begun now takes to a complete program (under
    /// fill-in-the-middle, to joining the suffix), `Some(0)` once complete. The decoder
    /// begins its wrap-up when the budget left comes down to it (plus a margin), so
    /// the wrap-up has room to finish. `None` when the constraint cannot tell (no
    /// finishing mask, no plan found, or no cheap way to bound it). A bound at most
    /// `enough` is all the caller needs: a constraint may return a looser one found
    /// cheaply when it is within `enough`, its tightest otherwise.
    fn finishing_distance(&mut self, _vocab: &Vocab, _enough: usize) -> Option<usize> {
        None
    }
    /// The width of the vocabulary the constraint was built over (its trie's), when
    /// that is fixed at construction; `None` when any vocabulary will do (the
    /// constraint adapts to the one it is given, or uses none). A driver refuses a
    /// vocabulary of another width before it starts (`espalier_decode::Generator::new`
    /// returns `DecodeError::VocabMismatch`); [`Constraint::fill_mask`] given one
    /// anyway allows nothing rather than index out of its trie.
    fn vocab_width(&self) -> Option<usize> {
        None
    }
}

/// The outcome of [`Constraint::commit`] for bytes that were (at least partly) valid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Commit {
    /// Every byte was accepted.
    Accepted,
    /// Token healing: only the first `accepted` bytes were committed (the token
    /// crossed a segment boundary in a way the constraint will not take whole). The
    /// driver removes the token from the model's context and samples again with the
    /// committed bytes as a forced prefix: the next token must start with them (or
    /// be a prefix of them), its rest checked with [`Constraint::allows`].
    Heal {
        /// How many leading bytes of the token the constraint kept.
        accepted: usize,
    },
}

/// Bytes the constraint refused: where, and what it expected there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejected {
    /// Offset of the first refused byte within the committed bytes.
    pub offset: usize,
    /// Human-readable description of what was expected (a regex, terminal names).
    pub expected: String,
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rejected at byte {}: expected {}", self.offset, self.expected)
    }
}

impl std::error::Error for Rejected {}

/// A snapshot of a constraint's internals for the step-through visualizer and the
/// per-step trace. Fields a constraint does not have stay empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Inspection {
    /// Which kind of constraint drew this (e.g. `python-lr`, `slua-top`, `fim`).
    pub kind: String,
    /// The tree of parsers (sLua), if any.
    pub tree: Option<TreeNode>,
    /// The regex the next segment must match (sLua), if any.
    pub regex: Option<String>,
    /// The LR parser stack, innermost last, as symbol names.
    pub stack: Vec<String>,
    /// Accept sequences of terminal names (SynCode's A0 / A1).
    pub accept_sequences: Vec<Vec<String>>,
    /// The unfinished last lexeme, if any.
    pub remainder: Option<String>,
    /// Fill in the middle: what the suffix still needs from the middle, one line each
    /// (open brackets, pending DEDENTs, the lexeme the suffix starts inside).
    #[serde(default)]
    pub needs: Vec<String>,
    /// Mode `names` (Python): the names a read sees at the cursor, innermost scope
    /// first, builtins left out (the names layer's scopes); `None` for constraints
    /// without a names layer.
    #[serde(default)]
    pub names_in_scope: Option<Vec<String>>,
}

/// One node of a parser tree as the visualizer shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TreeNode {
    /// The node's kind (block, if, call, ...).
    pub kind: String,
    /// A short description of its state.
    pub state: String,
    /// Its live children.
    pub children: Vec<TreeNode>,
}
