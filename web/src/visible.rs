//! Token text made legible: whitespace as visible marks, control characters and bytes
//! that are not UTF-8 on their own (byte-fallback tokens, the pieces of a multi-byte
//! character) as hex, so a person can read what was masked. Pure, so its tests run
//! natively with the other pure modules; the candidates panel and the chips draw the
//! pieces with their own style.

/// One piece of a token as the page draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Ordinary text, shown as is.
    Text(String),
    /// A whitespace character, shown as a mark (`·` space, `↵` newline, `⇥` tab, `␍`
    /// carriage return).
    Space(char),
    /// A byte shown in hex: a control character, or a byte that is not valid UTF-8 on
    /// its own.
    Byte(u8),
}

impl Piece {
    /// The text the page shows for this piece.
    pub fn shown(&self) -> String {
        match self {
            Piece::Text(t) => t.clone(),
            Piece::Space(c) => space_mark(*c).to_string(),
            Piece::Byte(b) => format!("<{b:02X}>"),
        }
    }

    /// The CSS class of this piece's kind.
    pub fn class(&self) -> &'static str {
        match self {
            Piece::Text(_) => "t",
            Piece::Space(_) => "ws",
            Piece::Byte(_) => "hex",
        }
    }
}

/// The mark a whitespace character is shown as.
fn space_mark(c: char) -> char {
    match c {
        ' ' => '·',
        '\n' => '↵',
        '\t' => '⇥',
        '\r' => '␍',
        _ => c,
    }
}

/// Splits a token's raw bytes into legible pieces: valid UTF-8 text (whitespace as
/// marks, other control characters as hex), and each byte of an invalid or cut
/// sequence as hex.
pub fn pieces(bytes: &[u8]) -> Vec<Piece> {
    fn flush(text: &mut String, out: &mut Vec<Piece>) {
        if !text.is_empty() {
            out.push(Piece::Text(std::mem::take(text)));
        }
    }
    let mut out = Vec::new();
    let mut text = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if matches!(c, ' ' | '\n' | '\t' | '\r') {
                flush(&mut text, &mut out);
                out.push(Piece::Space(c));
            } else if c.is_control() && c.is_ascii() {
                flush(&mut text, &mut out);
                out.push(Piece::Byte(c as u8));
            } else {
                text.push(c);
            }
        }
        if !chunk.invalid().is_empty() {
            flush(&mut text, &mut out);
            out.extend(chunk.invalid().iter().map(|&b| Piece::Byte(b)));
        }
    }
    flush(&mut text, &mut out);
    out
}

/// A token's raw bytes as one legible string (for titles, chips and tests).
pub fn label(bytes: &[u8]) -> String {
    pieces(bytes).iter().map(Piece::shown).collect()
}

/// Shows whitespace in already-decoded text (the chips of generated tokens).
pub fn visible(text: &str) -> String {
    label(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_visible() {
        assert_eq!(visible(" a\n\t"), "·a↵⇥");
        assert_eq!(label(b"\r\n    return"), "␍↵····return");
    }

    #[test]
    fn pieces_keep_text_marks_and_bytes_apart() {
        assert_eq!(
            pieces(b"  if\n"),
            vec![
                Piece::Space(' '),
                Piece::Space(' '),
                Piece::Text("if".into()),
                Piece::Space('\n')
            ]
        );
        // A byte-fallback token: the first two bytes of the three-byte "→" (E2 86 92).
        assert_eq!(pieces(&[0xE2, 0x86]), vec![Piece::Byte(0xE2), Piece::Byte(0x86)]);
        assert_eq!(label(&[0xE2, 0x86]), "<E2><86>");
        // Its last byte alone, after text.
        assert_eq!(label(&[b'x', 0x92]), "x<92>");
        // The whole character is text.
        assert_eq!(label("→".as_bytes()), "→");
    }

    #[test]
    fn control_characters_are_hex_and_unicode_text_stays() {
        assert_eq!(label(b"a\x00b\x1b"), "a<00>b<1B>");
        assert_eq!(label("é ü".as_bytes()), "é·ü");
        assert_eq!(pieces(b""), vec![]);
    }

    #[test]
    fn every_piece_has_a_class() {
        let classes: Vec<_> = pieces(&[b'a', b' ', 0xFF]).iter().map(Piece::class).collect();
        assert_eq!(classes, ["t", "ws", "hex"]);
    }
}
