//! Closing an unfinished Python f-string: the bytes that end every open replacement
//! field and then the literal ([`crate::Layer::closers`]: for the constraint crate's
//! finishing mask and its remaining cost).
//!
//! The lexer DFA sees an f-string as an ordinary string, so the shortest DFA path to
//! its end (the closing quote) leaves `f"{x` as `f"{x"`, which the recognizer refuses
//! when the literal ends (CPython 3.11 checks the replacement fields then). This scans
//! the literal the way CPython's f-string parser does, keeping the open fields (each
//! with its open brackets and an inner string, if any) and whether a field is in its
//! format spec, and proposes closers: inner quote, brackets, `}` per field, the
//! literal's quotes; with a filler first (`0`, `a`) for a field whose expression is
//! not yet complete (`f"{x +`, `f"{x.`, `f"{x!`). The caller keeps the candidates the
//! recognizer accepts.

/// One open replacement field.
#[derive(Clone, Debug, Default)]
struct Field {
    brackets: Vec<u8>,
    inner_quote: Option<u8>,
    in_spec: bool,
}

/// Candidate closers for the unfinished f-string literal `lexeme` (prefix, quotes and
/// body so far), shortest first; empty when `lexeme` is not an f-string literal that
/// a closer can end (no `f` prefix, or the body ends in a backslash).
pub fn closers(lexeme: &[u8]) -> Vec<Vec<u8>> {
    let Some(q) = lexeme.iter().position(|&b| b == b'"' || b == b'\'') else { return Vec::new() };
    let prefix = &lexeme[..q];
    if !prefix.iter().any(|&b| b == b'f' || b == b'F') || lexeme.last() == Some(&b'\\') {
        return Vec::new();
    }
    let quote = lexeme[q];
    let triple = lexeme[q..].starts_with(&[quote; 3]) && lexeme.len() >= q + 3;
    let body = &lexeme[q + if triple { 3 } else { 1 }..];
    let mut fields: Vec<Field> = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        match fields.last_mut() {
            None => match b {
                b'{' if body.get(i + 1) == Some(&b'{') => i += 1,
                b'{' => fields.push(Field::default()),
                b'}' if body.get(i + 1) == Some(&b'}') => i += 1,
                _ => {}
            },
            Some(f) if f.in_spec => match b {
                b'{' => fields.push(Field::default()),
                b'}' => {
                    fields.pop();
                }
                _ => {}
            },
            Some(f) => match (f.inner_quote, b) {
                (Some(iq), _) if b == iq => f.inner_quote = None,
                (Some(_), _) => {}
                (None, b'\'' | b'"') => f.inner_quote = Some(b),
                (None, b'(' | b'[' | b'{') => f.brackets.push(b),
                (None, b')' | b']') => {
                    f.brackets.pop();
                }
                (None, b'}') if !f.brackets.is_empty() => {
                    f.brackets.pop();
                }
                (None, b'}') => {
                    fields.pop();
                }
                (None, b':') if f.brackets.is_empty() => f.in_spec = true,
                _ => {}
            },
        }
        i += 1;
    }
    let mut tail = Vec::new();
    for f in fields.iter().rev() {
        if let Some(iq) = f.inner_quote {
            tail.push(iq);
        }
        for &open in f.brackets.iter().rev() {
            tail.push(match open {
                b'(' => b')',
                b'[' => b']',
                _ => b'}',
            });
        }
        tail.push(b'}');
    }
    tail.extend(std::iter::repeat_n(quote, if triple { 3 } else { 1 }));
    let mut out = vec![tail.clone()];
    if !fields.is_empty() {
        for filler in [&b"0"[..], b"a"] {
            let mut c = filler.to_vec();
            c.extend_from_slice(&tail);
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::closers;

    fn first(s: &str) -> String {
        String::from_utf8(closers(s.as_bytes())[0].clone()).unwrap()
    }

    #[test]
    fn closes_fields_brackets_and_quotes() {
        assert_eq!(first("f\"{x"), "}\"");
        assert_eq!(first("f'{g(a, [b"), "])}'");
        assert_eq!(first("f\"{d['k"), "']}\"");
        assert_eq!(first("f\"{x:{w"), "}}\"");
        assert_eq!(first("f\"{x:>10"), "}\"");
        assert_eq!(first("f\"{{x"), "\"");
        assert_eq!(first("rf'''a {b}\n{c"), "}'''");
        assert_eq!(closers(b"f\"{x +")[1], b"0}\"");
        assert!(closers(b"\"{x").is_empty());
        assert!(closers(b"f\"a\\").is_empty());
    }
}
