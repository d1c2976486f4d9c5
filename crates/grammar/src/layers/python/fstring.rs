//! Python 3.11 f-string checks.
//!
//! CPython 3.11 lexes an f-string as one STRING token and parses its replacement
//! fields afterwards (Parser/string_parser.c: `fstring_find_literal`,
//! `fstring_find_expr`). This module follows those two functions: doubled braces,
//! a single `}` is an error, expressions may not contain `\` or `#`, nesting of
//! format specs is limited to two levels, conversions are `!s` `!r` `!a`, and each
//! expression must parse as `(expression)` — which the caller checks with the Python
//! grammar itself.

/// Checks the body (text between the quotes) of an f-string. `check_expr` receives an
/// expression's text and says whether `(text)` is a valid Python expression.
pub fn check_fstring(
    body: &[u8],
    raw: bool,
    check_expr: &mut dyn FnMut(&[u8]) -> bool,
) -> Result<(), String> {
    let mut i = 0;
    Fields { raw, check_expr }.parse(body, &mut i, 0)?;
    Ok(())
}

/// What stays the same through one f-string's nested fields and specs: whether it is
/// raw, and the expression check.
struct Fields<'a> {
    raw: bool,
    check_expr: &'a mut dyn FnMut(&[u8]) -> bool,
}

impl Fields<'_> {
    /// Literal text and fields until the end (level 0) or an unmatched `}` (format spec).
    fn parse(&mut self, s: &[u8], i: &mut usize, level: u32) -> Result<(), String> {
        while *i < s.len() {
            let c = s[*i];
            if !self.raw && c == b'\\' && *i + 1 < s.len() {
                let n = s[*i + 1];
                *i += 2;
                if n == b'N' && *i < s.len() && s[*i] == b'{' {
                    while *i < s.len() && s[*i] != b'}' {
                        *i += 1;
                    }
                    if *i == s.len() {
                        // CPython's decoder then refuses it (found by tests/it/fstring_fuzz.rs).
                        return Err("f-string: malformed \\N character escape".into());
                    }
                    *i += 1;
                } else if n == b'N' {
                    return Err("f-string: malformed \\N character escape".into());
                } else if n == b'{' || n == b'}' {
                    *i -= 1; // the brace is handled below
                }
                continue;
            }
            if c == b'{' || c == b'}' {
                if level == 0 {
                    if *i + 1 < s.len() && s[*i + 1] == c {
                        *i += 2;
                        continue;
                    }
                    if c == b'}' {
                        return Err("f-string: single '}' is not allowed".into());
                    }
                }
                if c == b'}' {
                    return Ok(()); // end of a format spec
                }
                self.field(s, i, level)?;
                continue;
            }
            *i += 1;
        }
        Ok(())
    }

    /// A replacement field from its `{` at `*i` to past its `}`: the expression, then
    /// `=`, a conversion and a format spec, each optional.
    fn field(&mut self, s: &[u8], i: &mut usize, level: u32) -> Result<(), String> {
        if level >= 2 {
            return Err("f-string: expressions nested too deeply".into());
        }
        *i += 1;
        let start = *i;
        expression_end(s, i)?;
        let expr = &s[start..*i];
        if expr.iter().all(|b| b" \t\n\r\x0c\x0b".contains(b)) {
            return Err("f-string: empty expression not allowed".into());
        }
        if !(self.check_expr)(expr) {
            return Err("f-string: invalid syntax".into());
        }
        debug_and_conversion(s, i)?;
        if *i < s.len() && s[*i] == b':' {
            *i += 1;
            if *i >= s.len() {
                return Err("f-string: expecting '}'".into());
            }
            self.parse(s, i, level + 1)?;
        }
        if *i >= s.len() || s[*i] != b'}' {
            return Err("f-string: expecting '}'".into());
        }
        *i += 1;
        Ok(())
    }
}

/// Moves `*i` to the end of a field's expression (the `!`, `:`, `}` or `=` outside
/// brackets and strings that ends it), checking its brackets and quotes.
fn expression_end(s: &[u8], i: &mut usize) -> Result<(), String> {
    let mut quote = 0u8;
    let mut triple = false;
    let mut stack: Vec<u8> = Vec::new();
    while *i < s.len() {
        let c = s[*i];
        if c == b'\\' {
            return Err("f-string expression part cannot include a backslash".into());
        }
        if quote != 0 {
            if c == quote {
                if triple {
                    if *i + 2 < s.len() && s[*i + 1] == c && s[*i + 2] == c {
                        *i += 2;
                        quote = 0;
                    }
                } else {
                    quote = 0;
                }
            }
            *i += 1;
            continue;
        }
        match c {
            b'\'' | b'"' => {
                triple = *i + 2 < s.len() && s[*i + 1] == c && s[*i + 2] == c;
                if triple {
                    *i += 2;
                }
                quote = c;
            }
            b'[' | b'{' | b'(' => {
                if stack.len() >= 200 {
                    return Err("f-string: too many nested parenthesis".into());
                }
                stack.push(c);
            }
            b'#' => return Err("f-string expression part cannot include '#'".into()),
            b'!' | b':' | b'}' | b'=' | b'>' | b'<' if stack.is_empty() => {
                if *i + 1 < s.len() && s[*i + 1] == b'=' && matches!(c, b'!' | b'=' | b'<' | b'>') {
                    *i += 2;
                    continue;
                }
                if c == b'>' || c == b'<' {
                    *i += 1;
                    continue;
                }
                break;
            }
            b']' | b'}' | b')' => {
                let Some(open) = stack.pop() else {
                    return Err(format!("f-string: unmatched '{}'", c as char));
                };
                if !matches!((open, c), (b'(', b')') | (b'[', b']') | (b'{', b'}')) {
                    return Err(format!("f-string: closing parenthesis '{}' does not match opening parenthesis '{}'", c as char, open as char));
                }
            }
            _ => {}
        }
        *i += 1;
    }
    if quote != 0 {
        return Err("f-string: unterminated string".into());
    }
    if let Some(&open) = stack.last() {
        return Err(format!("f-string: unmatched '{}'", open as char));
    }
    if *i >= s.len() {
        return Err("f-string: expecting '}'".into());
    }
    Ok(())
}

/// Reads the optional `=` (with the blanks after it) and `!` conversion that may
/// follow a field's expression.
fn debug_and_conversion(s: &[u8], i: &mut usize) -> Result<(), String> {
    if s[*i] == b'=' {
        *i += 1;
        while *i < s.len() && b" \t\n\r\x0c\x0b".contains(&s[*i]) {
            *i += 1;
        }
        if *i >= s.len() {
            return Err("f-string: expecting '}'".into());
        }
    }
    if s[*i] == b'!' {
        *i += 1;
        if *i >= s.len() {
            return Err("f-string: expecting '}'".into());
        }
        let conv = s[*i];
        *i += 1;
        if !matches!(conv, b's' | b'r' | b'a') {
            return Err("f-string: invalid conversion character: expected 's', 'r', or 'a'".into());
        }
    }
    Ok(())
}

/// Splits a Python string literal into (prefix, body, is_f, is_raw); None when it is
/// not a string literal.
pub fn split_literal(lit: &[u8]) -> Option<(&[u8], &[u8], bool, bool)> {
    let q = lit.iter().position(|&b| b == b'\'' || b == b'"')?;
    let prefix = &lit[..q];
    let rest = &lit[q..];
    let qlen = if rest.len() >= 6 && rest[1] == rest[0] && rest[2] == rest[0] { 3 } else { 1 };
    if rest.len() < 2 * qlen {
        return None;
    }
    let body = &rest[qlen..rest.len() - qlen];
    let is_f = prefix.iter().any(|b| matches!(b, b'f' | b'F'));
    let is_raw = prefix.iter().any(|b| matches!(b, b'r' | b'R'));
    Some((prefix, body, is_f, is_raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(s: &str) -> Result<(), String> {
        let (_, body, _, raw) = split_literal(s.as_bytes()).unwrap();
        check_fstring(body, raw, &mut |e| !e.is_empty() && !e.starts_with(b"lambda"))
    }

    #[test]
    fn cpython_311_rules() {
        for ok in [
            "f\"a {b}}}\"",
            "f\"{x!r:{y}}\"",
            "f\"{x=}\"",
            "f\"{x = !r}\"",
            "rf\"\\N{x}\"",
            "f\"{x:=1}\"",
            "f\"{x!=y}\"",
            "f\"{x:{{}}}\"",
            "f'{a[\"b\"]}'",
            "f\"\"\"{'''a'''}\"\"\"",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for bad in [
            "f\"{}\"",
            "f\"{x:{y:{z}}}\"",
            "f\"{x!}\"",
            "f\"{x!r }\"",
            "f\"{a:b}}c\"",
            "f\"{a#}\"",
            "f\"{a\\n}\"",
            "f\"{a)}\"",
            "f\"{(a}\"",
            "f\"{a\"",
            "f\"}\"",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
    }
}
