//! The grammar crate's byte-level recognizer seen as a [`ByteState`], so the generic
//! tools of this crate ([`crate::StackRecognizer`], brute-force oracles in tests) run
//! on it.

use espalier_grammar::{Recognizer as GrammarRecognizer, TerminalId, TokenParser};

use crate::{ByteState, Inspection};

impl<P: TokenParser> ByteState for GrammarRecognizer<P> {
    #[inline]
    fn push_byte(&mut self, byte: u8) -> bool {
        GrammarRecognizer::try_push_byte(self, byte)
    }

    fn is_complete(&self) -> bool {
        GrammarRecognizer::is_complete(self)
    }

    fn describe(&self, out: &mut Inspection) {
        let lang = self.language();
        let name = |t: TerminalId| lang.terminal_name(t).to_string();
        out.stack = self.stack();
        let acc = self.accept_sequences();
        out.accept_sequences = acc.a0.iter().map(|t| vec![name(t)]).collect();
        for (t, after) in &acc.a1 {
            for t2 in after.iter() {
                out.accept_sequences.push(vec![name(*t), name(t2)]);
            }
        }
        let rem = self.remainder();
        if rem.len > 0 {
            out.remainder = Some(format!("{} byte(s), lexer state {}", rem.len, rem.dfa_state));
        }
    }
}
