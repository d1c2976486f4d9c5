//! The page's panels, each a pure function from the trace to HTML (the chips and
//! the settings form are components whose props compare by pointer or value, so a
//! step redraws only what it changed).

/// Token id to its raw bytes (shared: the chips keep them by pointer).
pub type TokenBytes = std::collections::BTreeMap<u32, std::rc::Rc<[u8]>>;

mod candidates;
mod chips;
mod fim;
mod form;
mod inspection;
mod model_file;
mod status;
mod timings;
mod translation;

pub use candidates::candidates;
pub use chips::{chips, Chip};
pub use fim::{fim_code, fim_inputs};
pub use form::Form;
pub use inspection::inspection;
pub use model_file::model_file;
pub use status::{loading, run_status};
pub use timings::timings;
pub use translation::translation;
