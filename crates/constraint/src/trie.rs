//! A byte trie over the vocabulary, flattened for one linear walk per mask.
//!
//! The idea is llguidance's `toktrie`: nodes are stored in preorder in one `Vec` of
//! 8-byte records, each carrying the size of its subtree and how many recognizer
//! states to pop once its subtree is done. A walk is then a single forward loop: a
//! byte the recognizer refuses skips its whole subtree with one addition, and no
//! recursion or per-node allocation happens. For the SmolLM2 vocabulary (49,152
//! tokens, 100,298 trie nodes, longest token 81 bytes) the table is 0.8 MB and a full
//! walk with an always-accepting recognizer visits every node in about 0.5 ms on one
//! core here (`tests/it/vocab_trie.rs` prints both).
//!
//! Tokens longer than [`MAX_TRIE_DEPTH`] bytes (none in SmolLM2, but a vocabulary may
//! have them) and special tokens are kept out of the trie: special tokens are never
//! allowed by a grammar, long tokens are listed in [`TokTrie::long_tokens`] and a
//! mask checks them one by one.
//!
//! The trie is plain data over the vocabulary: it knows no grammar. What a language
//! derives from it (lexeme-start summaries, start masks) is the kit's
//! ([`crate::MaskKit`]).

use crate::recognizer::Recognizer;
use crate::token_set::TokenSet;
use crate::vocab::Vocab;

/// Deepest path the trie stores. The per-node pop count has 8 bits, which bounds the
/// depth; 255 bytes is far above any real BPE token (SmolLM2's longest is 81 bytes).
pub const MAX_TRIE_DEPTH: usize = 255;

/// Marks a node that ends no token (24 bits of ones).
const NO_TOKEN: u32 = 0x00FF_FFFF;

/// One trie node, 8 bytes.
///
/// `a`: bits 0..24 the token id ending here (or [`NO_TOKEN`]), bits 24..32 the byte
/// on the edge into this node. 24 bits of token id cover vocabularies up to 16.7M
/// ids (the largest in use today have ~256k).
/// `b`: bits 0..24 the subtree size (this node included; 16.7M nodes is ~8x what a
/// 256k vocabulary needs), bits 24..32 how many recognizer states to pop after the
/// node's subtree when the node itself was accepted (see [`TokTrie::walk`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Node {
    a: u32,
    b: u32,
}

impl Node {
    #[inline(always)]
    fn byte(self) -> u8 {
        (self.a >> 24) as u8
    }
    #[inline(always)]
    fn token(self) -> u32 {
        self.a & NO_TOKEN
    }
    #[inline(always)]
    fn subtree(self) -> usize {
        (self.b & 0x00FF_FFFF) as usize
    }
    #[inline(always)]
    fn pops(self) -> usize {
        (self.b >> 24) as usize
    }
}

/// The vocabulary's byte trie (see the module doc).
#[derive(Clone, Debug)]
pub struct TokTrie {
    /// Preorder nodes; `nodes[0]` is the root (empty string).
    nodes: Vec<Node>,
    /// Token ids sharing bytes with an earlier id (`(first, duplicate)`, sorted by
    /// `first`): the trie stores one id per node, these get the same verdict.
    duplicates: Vec<(u32, u32)>,
    /// Non-special tokens too long for the trie, with their bytes; checked
    /// individually.
    long_tokens: Vec<(u32, Vec<u8>)>,
    /// Number of token ids in the vocabulary.
    vocab_len: usize,
    /// The longest token stored in the trie, in bytes.
    max_depth: usize,
}

impl TokTrie {
    /// Builds the trie of every non-special, non-empty token of `vocab`.
    pub fn new(vocab: &Vocab) -> Self {
        let mut ids: Vec<u32> = (0..vocab.len() as u32)
            .filter(|&id| !vocab.is_special(id) && !vocab.bytes(id).is_empty())
            .collect();
        let mut long_tokens = Vec::new();
        ids.retain(|&id| {
            let keep = vocab.bytes(id).len() <= MAX_TRIE_DEPTH;
            if !keep {
                long_tokens.push((id, vocab.bytes(id).to_vec()));
            }
            keep
        });
        // Sorting the byte strings gives preorder directly: a string comes right
        // before its extensions.
        ids.sort_by(|&x, &y| vocab.bytes(x).cmp(vocab.bytes(y)).then(x.cmp(&y)));

        let mut nodes = vec![Node { a: NO_TOKEN, b: 0 }];
        let mut duplicates = Vec::new();
        // Stack of (node index, depth) along the current path; root has depth 0.
        let mut path: Vec<usize> = vec![0];
        let mut prev: &[u8] = &[];
        let mut depth_of: Vec<u8> = vec![0];
        let mut max_depth = 0;
        for &id in &ids {
            let bytes = vocab.bytes(id);
            if bytes == prev {
                let first = nodes[*path.last().unwrap_or(&0)].token();
                duplicates.push((first, id));
                continue;
            }
            let common = bytes.iter().zip(prev).take_while(|(a, b)| a == b).count();
            path.truncate(common + 1);
            for (k, &byte) in bytes.iter().enumerate().skip(common) {
                let idx = nodes.len();
                nodes.push(Node { a: NO_TOKEN | (u32::from(byte) << 24), b: 0 });
                depth_of.push((k + 1) as u8);
                path.push(idx);
            }
            let last = *path.last().unwrap_or(&0);
            nodes[last].a = (nodes[last].a & 0xFF00_0000) | id;
            max_depth = max_depth.max(bytes.len());
            prev = bytes;
        }
        // Subtree sizes, from the end backwards: a node's subtree runs until the next
        // node whose depth is not greater.
        let n = nodes.len();
        let mut next_not_deeper = vec![n; n];
        let mut stack: Vec<usize> = Vec::new();
        for i in 0..n {
            while let Some(&top) = stack.last() {
                if depth_of[top] >= depth_of[i] {
                    next_not_deeper[top] = i;
                    stack.pop();
                } else {
                    break;
                }
            }
            stack.push(i);
        }
        for i in 0..n {
            let end = next_not_deeper[i];
            let size = (end - i) as u32;
            // After accepting node i (a leaf) the walk must come back to the parent of
            // the next node: pop depth(i) - depth(next) + 1 states; the end sentinel
            // sits at depth 1 (a sibling of the top level).
            let next_depth = if end < n { usize::from(depth_of[end]) } else { 1 };
            let pops = if i == 0 { 0 } else { usize::from(depth_of[i]) + 1 - next_depth };
            nodes[i].b = size | ((pops as u32) << 24);
        }
        duplicates.sort_unstable();
        Self { nodes, duplicates, long_tokens, vocab_len: vocab.len(), max_depth }
    }

    /// Number of nodes, root included.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Bytes of memory the table takes.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Node>()
            + self.duplicates.len() * 8
            + self.long_tokens.iter().map(|(_, b)| b.len() + 28).sum::<usize>()
    }

    /// The longest token stored in the trie, in bytes (the deepest a walk goes).
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// Tokens too long for the trie, which [`TokTrie::walk`] leaves to the caller.
    pub fn long_tokens(&self) -> &[(u32, Vec<u8>)] {
        &self.long_tokens
    }

    /// Number of token ids the masks range over.
    pub fn vocab_len(&self) -> usize {
        self.vocab_len
    }

    /// Adds to `mask` every trie token whose bytes `rec` accepts one by one (each
    /// prefix accepted), skipping the subtree of every refused byte. `rec` ends in the
    /// state it started in. Long tokens are not visited (see [`TokTrie::long_tokens`]);
    /// duplicates are added by [`TokTrie::add_duplicates`].
    ///
    /// Returns the number of nodes whose byte was offered to `rec` (the work done).
    pub fn walk<R: Recognizer + ?Sized>(&self, rec: &mut R, mask: &mut TokenSet) -> usize {
        self.walk_range::<false, R>(rec, mask, 1, self.nodes.len())
    }

    /// [`TokTrie::walk`] restricted to the subtree under the first byte `byte`
    /// (tokens that begin with `byte`); `rec` must accept `byte` first itself.
    /// Returns the number of nodes offered.
    pub fn walk_children_of_byte<R: Recognizer + ?Sized>(
        &self,
        byte: u8,
        rec: &mut R,
        mask: &mut TokenSet,
    ) -> usize {
        let Some(first) = self.top_level(byte) else { return 0 };
        let node = self.nodes[first];
        let tok = node.token();
        if tok != NO_TOKEN {
            mask.insert(tok as usize);
        }
        let end = first + node.subtree();
        if end == first + 1 {
            return 0;
        }
        // Walk the children as if they were top-level: temporarily the pops of the
        // subtree's last node account for one level more, so compensate by pushing
        // nothing and trimming: the walk below pops to depth 1 relative to the
        // child level, i.e. back to `rec` after `byte`.
        self.walk_range::<true, R>(rec, mask, first + 1, end)
    }

    /// The lengths of the trie's tokens that are prefixes of `bytes`, shortest first
    /// (one path down the trie; long tokens are not looked at).
    pub fn prefix_lengths(&self, bytes: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut node = 0;
        for (depth, &b) in bytes.iter().enumerate() {
            let end = node + self.nodes[node].subtree();
            let mut child = node + 1;
            while child < end && self.nodes[child].byte() != b {
                child += self.nodes[child].subtree();
            }
            if child >= end {
                break;
            }
            node = child;
            if self.nodes[node].token() != NO_TOKEN {
                out.push(depth + 1);
            }
        }
        out
    }

    fn top_level(&self, byte: u8) -> Option<usize> {
        let mut i = 1;
        while i < self.nodes.len() {
            let node = self.nodes[i];
            if node.byte() == byte {
                return Some(i);
            }
            i += node.subtree();
        }
        None
    }

    /// Offers nodes `start..end` to `rec` as [`TokTrie::walk`] describes. A `SHIFTED`
    /// range is the children of node `start - 1` (a depth-1 node) walked as a forest:
    /// the pops of its last subtree would return to depth 0, so they stop at the
    /// range's own level (where `rec` started) instead. An unshifted range (the whole
    /// trie) needs no such stop; the flag is a const so that its walk tracks nothing.
    #[inline]
    fn walk_range<const SHIFTED: bool, R: Recognizer + ?Sized>(
        &self,
        rec: &mut R,
        mask: &mut TokenSet,
        start: usize,
        end: usize,
    ) -> usize {
        let nodes = &self.nodes[..end];
        let mut i = start;
        let mut offered = 0;
        // Depth of the recognizer relative to where it started.
        let mut depth = 0usize;
        while i < end {
            let node = nodes[i];
            offered += 1;
            let last_of_range = SHIFTED && i + node.subtree() == end;
            if rec.try_push_byte(node.byte()) {
                depth += 1;
                let tok = node.token();
                if tok != NO_TOKEN {
                    mask.insert(tok as usize);
                }
                if node.subtree() == 1 {
                    let pops = if last_of_range { depth } else { node.pops() };
                    rec.pop_bytes(pops);
                    depth -= pops;
                }
                i += 1;
            } else {
                let pops = if last_of_range { depth } else { node.pops() - 1 };
                rec.pop_bytes(pops);
                depth -= pops;
                i += node.subtree();
            }
        }
        offered
    }

    /// Node `i`'s edge byte, token id (`u32::MAX` if none), subtree size and pop
    /// count, for walks written outside this module.
    #[inline(always)]
    pub(crate) fn node_info(&self, i: usize) -> (u8, u32, usize, usize) {
        let n = self.nodes[i];
        let tok = if n.token() == NO_TOKEN { u32::MAX } else { n.token() };
        (n.byte(), tok, n.subtree(), n.pops())
    }

    /// Walks the subtree below node `node` (its descendants, not the node itself) as
    /// [`TokTrie::walk`] does, with `rec` positioned after `node`'s byte; `rec` ends
    /// there again.
    pub(crate) fn walk_below<R: Recognizer + ?Sized>(
        &self,
        node: usize,
        rec: &mut R,
        mask: &mut TokenSet,
    ) -> usize {
        let end = node + self.nodes[node].subtree();
        if end == node + 1 {
            return 0;
        }
        self.walk_range::<true, R>(rec, mask, node + 1, end)
    }

    /// Gives every duplicate id the verdict of the id whose bytes it shares.
    pub fn add_duplicates(&self, mask: &mut TokenSet) {
        for &(first, dup) in &self.duplicates {
            if mask.contains(first as usize) {
                mask.insert(dup as usize);
            }
        }
    }

    /// All tokens in the trie, in preorder (byte order), with their depth: for
    /// precomputations that walk the vocabulary in order.
    pub fn tokens_in_order(&self) -> Vec<u32> {
        self.nodes.iter().map(|n| n.token()).filter(|&t| t != NO_TOKEN).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizer::Recognizer;

    /// Accepts byte strings that are prefixes of words in a fixed list.
    struct Prefixes {
        words: Vec<Vec<u8>>,
        stack: Vec<u8>,
    }

    impl Recognizer for Prefixes {
        fn try_push_byte(&mut self, byte: u8) -> bool {
            self.stack.push(byte);
            if self.words.iter().any(|w| w.starts_with(&self.stack)) {
                true
            } else {
                self.stack.pop();
                false
            }
        }
        fn pop_bytes(&mut self, n: usize) {
            let len = self.stack.len();
            assert!(n <= len, "popped {n} of {len}");
            self.stack.truncate(len - n);
        }
    }

    fn vocab(words: &[&str]) -> Vocab {
        Vocab::new(words.iter().map(|w| w.as_bytes().to_vec()).collect(), &[0], 0)
    }

    #[test]
    fn walk_agrees_with_checking_each_token() {
        let words = [
            "<eos>", "a", "ab", "abc", "b", "ba", "abd", "x", "ab", "bab", "c", "abcd", "zz", "q",
            "bb", "abce",
        ];
        let v = vocab(&words);
        let trie = TokTrie::new(&v);
        for allowed in [
            vec!["abc", "ba"],
            vec!["abcd", "bb", "zz"],
            vec![""],
            vec!["abcdef", "bab", "x", "q", "c", "abd", "abce"],
        ] {
            let mut rec = Prefixes {
                words: allowed.iter().map(|w| w.as_bytes().to_vec()).collect(),
                stack: vec![],
            };
            let mut mask = TokenSet::empty(v.len());
            trie.walk(&mut rec, &mut mask);
            trie.add_duplicates(&mut mask);
            assert!(rec.stack.is_empty(), "walk must restore the recognizer");
            for (id, w) in words.iter().enumerate() {
                let expect = id != 0 && rec.words.iter().any(|a| a.starts_with(w.as_bytes()));
                assert_eq!(mask.contains(id), expect, "token {w:?} with {allowed:?}");
            }
            for b in [b'a', b'b', b'z'] {
                let mut sub = TokenSet::empty(v.len());
                if rec.try_push_byte(b) {
                    trie.walk_children_of_byte(b, &mut rec, &mut sub);
                    trie.add_duplicates(&mut sub);
                    assert_eq!(rec.stack.len(), 1);
                    rec.pop_bytes(1);
                    for (id, w) in words.iter().enumerate() {
                        let expect = id != 0
                            && w.as_bytes().first() == Some(&b)
                            && rec.words.iter().any(|a| a.starts_with(w.as_bytes()));
                        assert_eq!(sub.contains(id), expect, "sub {b} token {w:?}");
                    }
                }
            }
        }
    }
}
