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

/// Shows whitespace in token text so chips of spaces and newlines stay visible.
pub fn visible(text: &str) -> String {
    text.replace(' ', "·").replace('\n', "↵").replace('\t', "⇥")
}

#[cfg(test)]
mod tests {
    #[test]
    fn whitespace_is_visible() {
        assert_eq!(super::visible(" a\n\t"), "·a↵⇥");
    }
}
