//! [`escape`]: literal text as a regex of the segment automata (its own file so that
//! the lexemes and the scoped names both use it without importing each other).

/// Regex escape of literal text.
pub fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            _ => out.push(c),
        }
    }
    out
}
