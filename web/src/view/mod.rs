//! The page's panels, each a pure function from the trace to HTML.

mod candidates;
mod chips;
mod inspection;
mod status;
mod timings;
mod translation;

pub use candidates::candidates;
pub use chips::chips;
pub use inspection::inspection;
pub use status::{loading, run_status};
pub use timings::timings;
pub use translation::translation;
