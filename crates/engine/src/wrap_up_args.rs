//! [`WrapUpArgs`]: the wrap-up flags of the command lines (`espalier generate`,
//! `espalier-lab eval`), flattened into each; `GenerateConfig::with_wrap_up` applies
//! them.

/// `--wrap-up N`, `--no-wrap-up` (and the hidden `--wrap-up-on-repetition`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct WrapUpArgs {
    /// Wrap up (on by default under a constraint): when this many tokens of the
    /// budget are left (default 32; earlier where the constraint's finishing distance
    /// needs more: Python, Go, FIM), allow only tokens that lead towards finishing the
    /// program (the constraint's finishing mask: Python, Go, FIM, sLua; no effect
    /// without a language), and a loop the repetition guard finds wraps up instead of
    /// stopping. So a constrained program ends complete within the budget. 0: on the
    /// finishing distance alone.
    #[arg(long, conflicts_with = "no_wrap_up")]
    pub wrap_up: Option<usize>,
    /// Turn the wrap-up off: the generation may end where the budget or the repetition
    /// guard cuts it, mid-statement.
    #[arg(long)]
    pub no_wrap_up: bool,
    /// The default (kept so that older command lines run): a loop wraps up.
    #[arg(long, hide = true, conflicts_with = "no_wrap_up")]
    pub wrap_up_on_repetition: bool,
}
