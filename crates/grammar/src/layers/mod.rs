//! The lexical layers between the lexer DFA and the parser, one folder per language
//! (`python/`, `go/`), behind one hook ([`LexicalLayer`], `lexical_layer.rs`) that
//! the byte-level recognizer calls at fixed points (and tools reasoning about a text's
//! future ask: its layout terminals, an unfinished lexeme's closers); `any_layer.rs`
//! lists them.

mod any_layer;
pub mod go;
mod layout_terminals;
pub(crate) mod lexical_layer;
pub mod python;

pub use any_layer::{Layer, LayerKind, LayerState};
pub use layout_terminals::LayoutTerminals;
pub use lexical_layer::{ReaderSource, SubReader};
