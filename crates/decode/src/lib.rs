//! espalier-decode: the generation loop that joins a language model to any
//! [`Constraint`] (Python grammar, sLua tree of parsers, or none), natively and in
//! the browser.
//!
//! Main types: [`Generator`] (the loop as a sans-IO state machine: it says what to
//! feed the model, takes logits back, samples under the constraint, heals tokens,
//! applies stop rules and records a [`StepTrace`]), [`Sampler`] (greedy / temperature
//! / top-k / top-p with a seeded portable RNG), [`Mode`] (none / mask / rejection /
//! syncode), [`StopReason`], [`run`] with the [`LanguageModel`] trait for synchronous
//! models, and [`prompt`] for chat templates. The languages live in one registry
//! ([`languages`], handles [`Lang`]); a [`Task`] turns a language, a mode and a
//! request into the prompt, the [`LangConstraint`] and the decode settings. The
//! evaluation harness (problem sets, oracles) lives in the lab (`espalier-lab`), so
//! nothing here links a Lua VM.
//!
//! ```
//! use std::{sync::Arc, time::Duration};
//! use espalier_constraint::Vocab;
//! use espalier_decode::{GenerateConfig, Generator, Mode, Unconstrained};
//!
//! let vocab = Arc::new(Vocab::new(vec![b"<eos>".to_vec(), b"a".to_vec(), b"b".to_vec()], &[0], 0));
//! let config = GenerateConfig { mode: Mode::None, max_tokens: 2, ..GenerateConfig::default() };
//! let mut generator = Generator::new(vocab, Unconstrained, &[1], config).unwrap();
//! while let Some(feed) = generator.next_input() {
//!     // A real driver runs `feed.tokens` through the model here.
//!     let logits = [0.0, 0.0, 1.0];
//!     generator.step(&logits, Duration::ZERO).unwrap();
//! }
//! assert_eq!(generator.text(), "bb");
//! ```

pub mod chat_family;
mod cut_states;
pub mod driver;
pub mod error;
mod forced_prefix;
mod generate_config;
pub mod generator;
pub mod grammar_check;
pub mod grammar_kit;
pub mod kit;
pub mod lang_constraint;
pub mod lang_error;
pub mod languages;
pub mod logits;
pub mod mode;
pub mod names_constraint;
pub mod names_finish;
mod names_keyword_check;
pub mod prompt;
pub mod sampler;
pub mod shortlist;
pub mod source_file;
mod stats;
pub mod stop;
pub mod task;
pub mod trace;
pub mod unconstrained;
pub mod wrap_up;

pub use driver::{run, DriveError, LanguageModel, Timing};
pub use error::DecodeError;
pub use espalier_constraint::Constraint;
pub use generate_config::DEFAULT_WRAP_UP;
pub use generator::{Feed, GenerateConfig, Generator, Stats, StepOutcome};
pub use grammar_kit::GrammarKit;
pub use kit::{ConstraintInput, Kit, Kits};
pub use lang_constraint::LangConstraint;
pub use lang_error::LangError;
pub use languages::{
    Benchmark, BenchmarkFormat, CheckOptions, Checked, Evaluation, Framing, Lang, LangSpec,
    Prompting, UnknownLang,
};
pub use logits::{HostLogits, Logits, LogitsError};
pub use mode::{Mode, UnknownMode};
pub use sampler::{Sampler, SamplingConfig};
pub use shortlist::{DrawMass, ListTotal, Shortlist};
pub use stop::{RepetitionGuard, StopReason};
pub use task::{Prepared, Task};
pub use trace::{Candidate, How, StepTrace};
pub use unconstrained::Unconstrained;
