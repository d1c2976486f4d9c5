//! Python's lexical layer: the layout (INDENT / DEDENT, line joining in brackets)
//! and f-strings read byte by byte (and the bytes that close an unfinished one,
//! `fstring_closer.rs`).

pub mod fstring;
pub mod fstring_closer;
mod fstring_field;
mod layout;
mod python_layer;
mod terminals;

pub use fstring_field::{FieldExprView, FieldView};
pub use python_layer::{PythonLayer, PythonState};
pub use terminals::PythonTerminals;
