//! The names layer's lexer: Python bytes to the few token classes the layer needs
//! (names, operators, literals, logical lines with their indentation), one byte at a
//! time. It trusts the grammar for validity (the layer runs beside the grammar's
//! recognizer) and only needs to find where names start and end: strings (all
//! prefixes, triple quotes, escapes; f-strings as whole strings), numbers, comments,
//! line continuations and brackets' implicit line joining.

/// An operator, as far as the layer tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Assign,
    Walrus,
    Colon,
    Comma,
    Dot,
    Open(u8),
    Close,
    Semicolon,
    Star,
    DoubleStar,
    Arrow,
    At,
    /// `+=` and the other augmented assignments.
    AugAssign,
    /// Everything else: arithmetic, bitwise, comparison (`==` included), `~`, `...`.
    Other,
}

/// What the lexer hands the layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// The first byte of a significant token (before any event of that token): the
    /// byte, and whether it starts an identifier.
    Start(u8),
    /// A logical line's first token is next; its indentation in columns.
    LineStart(u32),
    /// A byte appended to the identifier being read.
    IdentByte,
    /// The identifier read so far ended (its text is [`Lexer::ident`]).
    Name,
    Op(Op),
    /// A number or string literal started.
    Literal,
    /// A logical line ended (NEWLINE outside brackets).
    Newline,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Code,
    Ident,
    Number,
    Str {
        quote: u8,
        triple: bool,
        escaped: bool,
        closing: u8,
    },
    Comment,
    Op,
    /// A backslash outside strings: the line goes on.
    Continuation,
}

/// The lexer's state (small: the mask clones the layer hundreds of times per step).
#[derive(Debug)]
pub(crate) struct Lexer {
    mode: Mode,
    /// The identifier being read, or the string prefix read.
    ident: Vec<u8>,
    op: [u8; 3],
    op_len: usize,
    /// At a logical line's start, measuring indentation (columns so far).
    line_start: Option<u32>,
    /// Open brackets (inside them newlines do not end the line).
    depth: u32,
}

clone_reusing!(Lexer { mode, ident, op, op_len, line_start, depth });

const OPS: &[&[u8]] = &[
    b"+", b"-", b"*", b"/", b"//", b"%", b"**", b"@", b"<<", b">>", b"&", b"|", b"^", b"~", b":=",
    b"<", b">", b"<=", b">=", b"==", b"!=", b"!", b"(", b")", b"[", b"]", b"{", b"}", b",", b":",
    b".", b"..", b"...", b";", b"=", b"->", b"+=", b"-=", b"*=", b"/=", b"//=", b"%=", b"@=",
    b"&=", b"|=", b"^=", b">>=", b"<<=", b"**=",
];

/// An operator's bytes as one number (length in the top byte).
const fn op_key(op: &[u8]) -> u32 {
    let mut key = (op.len() as u32) << 24;
    let mut i = 0;
    while i < op.len() && i < 3 {
        key |= (op[i] as u32) << (8 * i);
        i += 1;
    }
    key
}

const OP_KEYS: [u32; OPS.len()] = {
    let mut keys = [0; OPS.len()];
    let mut i = 0;
    while i < OPS.len() {
        keys[i] = op_key(OPS[i]);
        i += 1;
    }
    keys
};

/// Whether some operator starts with `p` (`OPS` holds every prefix of its members,
/// so: whether `p` is one). Compared as numbers: the lexer asks at every operator
/// byte, and the mask reads operators of many tokens.
fn is_op_prefix(p: &[u8]) -> bool {
    p.len() <= 3 && OP_KEYS.contains(&op_key(p))
}

/// Whether a longer operator starts with `p`.
fn op_extends(p: &[u8]) -> bool {
    match p {
        [a] => b"+-*/%@<>&|^=!:.".contains(a),
        _ => matches!(p, b"//" | b"**" | b"<<" | b">>" | b".."),
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_string_prefix(p: &[u8]) -> bool {
    let lower: Vec<u8> = p.to_ascii_lowercase();
    matches!(&lower[..], b"r" | b"u" | b"b" | b"f" | b"rb" | b"br" | b"fr" | b"rf")
}

fn classify(op: &[u8]) -> Op {
    match op {
        b"=" => Op::Assign,
        b":=" => Op::Walrus,
        b":" => Op::Colon,
        b"," => Op::Comma,
        b"." => Op::Dot,
        b"(" | b"[" | b"{" => Op::Open(op[0]),
        b")" | b"]" | b"}" => Op::Close,
        b";" => Op::Semicolon,
        b"*" => Op::Star,
        b"**" => Op::DoubleStar,
        b"->" => Op::Arrow,
        b"@" => Op::At,
        _ if op.len() >= 2
            && op.ends_with(b"=")
            && !matches!(op, b"==" | b"<=" | b">=" | b"!=") =>
        {
            Op::AugAssign
        }
        _ => Op::Other,
    }
}

impl Lexer {
    pub(crate) fn new() -> Self {
        Self {
            mode: Mode::Code,
            ident: Vec::new(),
            op: [0; 3],
            op_len: 0,
            line_start: Some(0),
            depth: 0,
        }
    }

    /// The identifier read so far (or just ended).
    pub(crate) fn ident(&self) -> &[u8] {
        &self.ident
    }

    /// Inside a comment or a string's body, the two bytes that can end the stretch in
    /// which bytes cause no event (a comment: the newline; a string: its quote and the
    /// backslash); `None` elsewhere.
    pub(crate) fn inert_stops(&self) -> Option<[u8; 2]> {
        match self.mode {
            Mode::Comment => Some([b'\n', b'\n']),
            Mode::Str { quote, escaped: false, .. } if self.ident.first() != Some(&1) => {
                Some([quote, b'\\'])
            }
            _ => None,
        }
    }

    /// Whether the lexer is inside an identifier.
    pub(crate) fn in_ident(&self) -> bool {
        self.mode == Mode::Ident
    }

    /// Whether the lexer is inside an operator that may go on (not emitted yet).
    pub(crate) fn in_op(&self) -> bool {
        self.mode == Mode::Op
    }

    /// Ends what the end of the text ends (an identifier, an operator) as if a newline
    /// came: the events before a program's end.
    pub(crate) fn finish(&mut self, out: &mut Vec<Event>) {
        self.push(b'\n', out);
    }

    /// Reads one byte; appends the events it causes to `out`.
    pub(crate) fn push(&mut self, b: u8, out: &mut Vec<Event>) {
        match self.mode {
            Mode::Ident => {
                if is_ident_byte(b) {
                    self.ident.push(b);
                    out.push(Event::IdentByte);
                    return;
                }
                if (b == b'\'' || b == b'"') && is_string_prefix(&self.ident) {
                    self.mode = Mode::Str { quote: b, triple: false, escaped: false, closing: 0 };
                    self.string_opened();
                    out.push(Event::Literal);
                    return;
                }
                out.push(Event::Name);
                self.mode = Mode::Code;
            }
            Mode::Number => {
                if is_ident_byte(b) || b == b'.' {
                    return;
                }
                self.mode = Mode::Code;
            }
            Mode::Str { .. } => {
                if !self.string_byte(b) {
                    return;
                }
            }
            Mode::Comment => {
                if b != b'\n' {
                    return;
                }
                self.mode = Mode::Code;
            }
            Mode::Continuation => {
                if b == b'\n' {
                    self.mode = Mode::Code;
                }
                return;
            }
            Mode::Op => {
                let len = self.op_len;
                let mut cand = self.op;
                if len < 3 {
                    cand[len] = b;
                    if is_op_prefix(&cand[..len + 1]) {
                        self.op = cand;
                        self.op_len = len + 1;
                        self.finish_op_if_whole(out);
                        return;
                    }
                }
                self.emit_op(out);
            }
            Mode::Code => {}
        }
        self.code_byte(b, out);
    }

    /// A byte between tokens.
    fn code_byte(&mut self, b: u8, out: &mut Vec<Event>) {
        if let Some(cols) = self.line_start {
            match b {
                b' ' => return self.line_start = Some(cols + 1),
                b'\t' => return self.line_start = Some((cols / 8 + 1) * 8),
                b'\x0c' | b'\r' => return,
                b'\n' => return self.line_start = Some(0),
                b'#' => {
                    self.mode = Mode::Comment;
                    return;
                }
                b'\\' => {
                    self.mode = Mode::Continuation;
                    return;
                }
                _ => {
                    self.line_start = None;
                    out.push(Event::LineStart(cols));
                }
            }
        }
        match b {
            b' ' | b'\t' | b'\x0c' | b'\r' => {}
            b'\n' => {
                if self.depth == 0 {
                    out.push(Event::Newline);
                    self.line_start = Some(0);
                }
            }
            b'#' => self.mode = Mode::Comment,
            b'\\' => self.mode = Mode::Continuation,
            b'\'' | b'"' => {
                out.push(Event::Start(b));
                self.ident.clear();
                self.mode = Mode::Str { quote: b, triple: false, escaped: false, closing: 0 };
                self.string_opened();
                out.push(Event::Literal);
            }
            b'0'..=b'9' => {
                out.push(Event::Start(b));
                self.mode = Mode::Number;
                out.push(Event::Literal);
            }
            _ if is_ident_start(b) => {
                out.push(Event::Start(b));
                self.ident.clear();
                self.ident.push(b);
                self.mode = Mode::Ident;
                out.push(Event::IdentByte);
            }
            _ => {
                out.push(Event::Start(b));
                self.op = [b, 0, 0];
                self.op_len = 1;
                self.mode = Mode::Op;
                self.finish_op_if_whole(out);
            }
        }
    }

    /// Emits the operator now when no longer operator starts with it.
    fn finish_op_if_whole(&mut self, out: &mut Vec<Event>) {
        let cur = &self.op[..self.op_len];
        if !op_extends(cur) {
            self.emit_op(out);
        }
    }

    fn emit_op(&mut self, out: &mut Vec<Event>) {
        let op = classify(&self.op[..self.op_len]);
        match op {
            Op::Open(_) => self.depth += 1,
            Op::Close => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        self.mode = Mode::Code;
        out.push(Event::Op(op));
    }

    /// A string prefix's quote (or a bare quote) was read: a string literal opens
    /// (`ident` holds the marker 1 while the opening quotes are read).
    fn string_opened(&mut self) {
        if let Mode::Str { closing, .. } = &mut self.mode {
            *closing = 1;
        }
        self.ident.clear();
        self.ident.push(1);
    }

    /// Reads one byte of a string; `true` when the string ended before it (the byte
    /// is code).
    fn string_byte(&mut self, b: u8) -> bool {
        let Mode::Str { quote, triple, escaped, closing } = self.mode else { return true };
        if self.ident.first() == Some(&1) {
            // The opening quotes: `''` is an empty string, `'''` opens a triple.
            match (closing, b == quote) {
                (1, true) => {
                    self.mode = Mode::Str { quote, triple, escaped, closing: 2 };
                    return false;
                }
                (2, true) => {
                    self.ident.clear();
                    self.mode = Mode::Str { quote, triple: true, escaped: false, closing: 0 };
                    return false;
                }
                (2, false) => {
                    self.ident.clear();
                    self.mode = Mode::Code;
                    return true;
                }
                _ => self.ident.clear(),
            }
        }
        let next = |escaped, closing| Mode::Str { quote, triple, escaped, closing };
        self.mode = match b {
            _ if escaped => next(false, 0),
            b'\\' => next(true, 0),
            _ if b == quote && !triple => Mode::Code,
            _ if b == quote && closing == 2 => Mode::Code,
            _ if b == quote => next(false, closing + 1),
            _ => next(false, 0),
        };
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_prefixes_are_the_operators_prefixes() {
        let bytes: Vec<u8> = OPS.iter().flat_map(|o| o.iter().copied()).chain(*b"a ").collect();
        let mut seqs: Vec<Vec<u8>> = bytes.iter().map(|&b| vec![b]).collect();
        for _ in 0..2 {
            let longer: Vec<Vec<u8>> = seqs
                .iter()
                .flat_map(|s| bytes.iter().map(move |&b| [s.as_slice(), &[b]].concat()))
                .collect();
            seqs.extend(longer);
            seqs.sort();
            seqs.dedup();
        }
        for p in &seqs {
            let prefix = OPS.iter().any(|o| o.starts_with(p));
            let extends = OPS.iter().any(|o| o.len() > p.len() && o.starts_with(p));
            assert_eq!(is_op_prefix(p), prefix, "{:?}", String::from_utf8_lossy(p));
            if prefix {
                assert_eq!(op_extends(p), extends, "{:?}", String::from_utf8_lossy(p));
            }
        }
    }
}
