//! Python's lexical layer: the layout (INDENT / DEDENT, line joining in brackets)
//! and f-strings read byte by byte.

pub mod fstring;
mod fstring_field;
mod layout;
mod python_layer;
mod terminals;

pub use fstring_field::{FieldExprView, FieldView};
pub use python_layer::{PythonLayer, PythonState};
pub use terminals::PythonTerminals;
