//! Go's lexical layer: automatic semicolons.

mod go_layer;
pub mod semicolons;

pub use go_layer::{GoLayer, GoState};
pub use semicolons::GoTerminals;
