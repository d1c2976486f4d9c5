//! The lexical layers between the lexer DFA and the parser, one folder per language
//! (`python/`, `go/`), behind one hook ([`LexicalLayer`], `lexical_layer.rs`) that
//! the byte-level recognizer calls at fixed points; `any_layer.rs` lists them.

mod any_layer;
pub mod go;
pub(crate) mod lexical_layer;
pub mod python;

pub use any_layer::{Layer, LayerKind, LayerState};
pub use lexical_layer::{ReaderSource, SubReader};
