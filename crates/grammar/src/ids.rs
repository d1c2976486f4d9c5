//! Ids as newtypes, as regex-automata's `StateID` and `PatternID`: a terminal, a
//! nonterminal, a production, a lexer DFA state and an LR state are each their own type, so a nonterminal cannot be
//! used as a state, nor a function taking several take them in the wrong order. Each
//! is a `u32` underneath (`#[repr(transparent)]`: a `Vec` of ids is laid out as a
//! `Vec<u32>`, and converting costs nothing), with [`index`](NonterminalId::index)
//! for indexing and a `Debug` that names its kind (`Nonterminal(12)`).

/// Defines one id type: a `u32` newtype with `new`, `from_index`, `index`, `as_u32`.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(u32);

        impl $name {
            /// The id numbered `n`.
            #[inline(always)]
            pub const fn new(n: u32) -> Self {
                Self(n)
            }

            /// The id of position `i` (the tables that hand ids out hold fewer than
            /// `u32::MAX` entries).
            #[inline(always)]
            pub const fn from_index(i: usize) -> Self {
                Self(i as u32)
            }

            /// Its position, for indexing.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// Its number.
            #[inline(always)]
            pub const fn as_u32(self) -> u32 {
                self.0
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($kind, "({})"), self.0)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id_type!(
    /// Index of a terminal in [`crate::Grammar::terminals`] (terminal 0 is `$END`).
    TerminalId,
    "Terminal"
);

id_type!(
    /// Index of a nonterminal in [`crate::Grammar::nonterminals`].
    NonterminalId,
    "Nonterminal"
);

id_type!(
    /// Index of a production in [`crate::Grammar::productions`].
    ProductionId,
    "Production"
);

id_type!(
    /// A state of [`crate::LexerDfa`] (dense, `0..num_states()`; 0 is
    /// [`crate::LexerDfa::DEAD`], 1 [`crate::LexerDfa::START`]).
    DfaState,
    "DfaState"
);

id_type!(
    /// A state of [`crate::LrTable`] (`0..num_states()`; 0 is the start state, the
    /// bottom of every LR stack).
    LrState,
    "LrState"
);

impl LrState {
    /// The start state: the bottom of every LR stack.
    pub const START: LrState = LrState::new(0);
}
