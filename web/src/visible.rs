//! Token text with its whitespace made visible, for the chips and candidate lists
//! (pure, so its test runs natively with the other pure modules).

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
