//! The SmolLM2 vocabulary's trie: every token reachable, walks restore the
//! recognizer, and its size (figures quoted in `trie.rs`).

use crate::common;

use espalier_constraint::{Recognizer, TokenSet};

/// Accepts every byte; counts depth so the walk's pops can be checked.
struct Everything(usize);

impl Recognizer for Everything {
    fn try_push_byte(&mut self, _byte: u8) -> bool {
        self.0 += 1;
        true
    }
    fn pop_bytes(&mut self, n: usize) {
        assert!(n <= self.0);
        self.0 -= n;
    }
}

/// Accepts bytes below 0x80 only (ASCII tokens).
struct Ascii(usize);

impl Recognizer for Ascii {
    fn try_push_byte(&mut self, byte: u8) -> bool {
        if byte < 0x80 {
            self.0 += 1;
            true
        } else {
            false
        }
    }
    fn pop_bytes(&mut self, n: usize) {
        assert!(n <= self.0);
        self.0 -= n;
    }
}

#[test]
fn smollm2_trie_walks_reach_exactly_the_expected_tokens() {
    let (_tok, vocab, trie) = common::smollm2();
    eprintln!(
        "vocab {} tokens, trie {} nodes, {} bytes, max depth {}, long tokens {}",
        vocab.len(),
        trie.node_count(),
        trie.memory_bytes(),
        trie.max_depth(),
        trie.long_tokens().len()
    );
    let mut mask = TokenSet::empty(vocab.len());
    let mut all = Everything(0);
    let t = std::time::Instant::now();
    let offered = trie.walk(&mut all, &mut mask);
    eprintln!("full walk: {offered} nodes in {:?}", t.elapsed());
    trie.add_duplicates(&mut mask);
    assert_eq!(all.0, 0);
    assert_eq!(offered, trie.node_count() - 1);
    for id in 0..vocab.len() as u32 {
        let expect = !vocab.is_special(id) && !vocab.bytes(id).is_empty();
        assert_eq!(mask.contains(id as usize), expect, "token {id} {:?}", vocab.bytes(id));
    }
    let mut ascii = Ascii(0);
    mask.clear();
    trie.walk(&mut ascii, &mut mask);
    trie.add_duplicates(&mut mask);
    assert_eq!(ascii.0, 0);
    for id in 0..vocab.len() as u32 {
        let b = vocab.bytes(id);
        let expect = !vocab.is_special(id) && !b.is_empty() && b.is_ascii();
        assert_eq!(mask.contains(id as usize), expect, "token {id} {b:?}");
    }
}
