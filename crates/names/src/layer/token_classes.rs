//! A vocabulary's tokens as the names layer's mask sees them (built once per
//! vocabulary; `vocab_mask.rs` says how a position uses them).
//!
//! A token is split into its lead (the bytes before its trailing run of identifier
//! bytes) and its tail (that run). Tokens with the same lead, and tails starting the
//! same way (a digit, another identifier byte, or no tail), form a group: the layer
//! reads a group's lead once per position, and the leads' common prefixes once (the
//! leads' trie). The tails are interned in a trie by their bytes (a tail may end
//! inside a UTF-8 character: the layer's prefix check reads bytes, so such a tail is
//! taken only where a name goes on with those very bytes).

use super::machine::Machine;

pub(crate) fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Byte strings (the tails, the leads) as a trie (node 0: the empty string).
#[derive(Debug, Default)]
pub(crate) struct ByteTrie {
    /// Per node: its children, sorted by byte.
    children: Vec<Vec<(u8, u32)>>,
}

impl ByteTrie {
    fn new() -> Self {
        Self { children: vec![Vec::new()] }
    }

    pub(crate) fn child(&self, node: u32, b: u8) -> Option<u32> {
        let kids = &self.children[node as usize];
        kids.binary_search_by_key(&b, |&(k, _)| k).ok().map(|i| kids[i].1)
    }

    /// The node of `s`, added where missing.
    fn insert(&mut self, s: &[u8]) -> u32 {
        s.iter().fold(0, |node, &b| self.insert_child(node, b))
    }

    /// The child of `node` by `b`, added where missing.
    fn insert_child(&mut self, node: u32, b: u8) -> u32 {
        if let Some(n) = self.child(node, b) {
            return n;
        }
        let n = self.children.len() as u32;
        self.children.push(Vec::new());
        let kids = &mut self.children[node as usize];
        let at = kids.partition_point(|&(k, _)| k < b);
        kids.insert(at, (b, n));
        n
    }

    /// Marks in `bits` the node of every prefix of `s` that is a node (the empty one
    /// included).
    pub(crate) fn mark_prefixes(&self, s: &[u8], bits: &mut [u64]) {
        let mut node = 0u32;
        set(bits, node as usize);
        for &b in s {
            match self.child(node, b) {
                Some(n) => node = n,
                None => return,
            }
            set(bits, node as usize);
        }
    }

    /// The number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.children.len()
    }

    /// The words of a bitset over the nodes.
    pub(crate) fn words(&self) -> usize {
        self.children.len().div_ceil(64)
    }
}

pub(crate) fn set(bits: &mut [u64], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}

pub(crate) fn get(bits: &[u64], i: usize) -> bool {
    bits[i / 64] & (1 << (i % 64)) != 0
}

/// A group of tokens: the same lead, and a tail starting with a digit, an identifier
/// start, or none.
#[derive(Debug)]
pub(crate) struct Group {
    pub(crate) lead: Vec<u8>,
    /// The stand-in for the tail's first byte (`a` or `0`); `None`: no tail.
    pub(crate) first: Option<u8>,
    /// Where the lead's last identifier byte ends (0: none): from there on a group
    /// without a tail reads no identifier.
    pub(crate) last_ident: usize,
    /// The nodes of the lead's prefixes in the leads' trie (one per byte), at
    /// `TokenClasses::paths[path..path + lead.len()]`.
    pub(crate) path: usize,
}

/// Groups with at least this many tokens are judged in bulk, by bitset words.
const BIG: usize = 256;

/// A vocabulary's tokens in groups and tails.
#[derive(Debug)]
pub struct TokenClasses {
    /// Per token: its group.
    pub(crate) group: Vec<u32>,
    /// Per token: the node of its tail.
    pub(crate) tail: Vec<u32>,
    pub(crate) groups: Vec<Group>,
    pub(crate) leads: ByteTrie,
    /// Per node of the leads' trie: whether the layer after its prefix is needed only
    /// to read its one child (no group with a tail has it as its lead): the mask then
    /// reads the child on that layer instead of a copy (`vocab_mask.rs`).
    pub(crate) lone: Vec<bool>,
    /// The groups' lead paths (see [`Group::path`]).
    pub(crate) paths: Vec<u32>,
    pub(crate) tails: ByteTrie,
    /// Per tail node: its tokens (`tail_ids[tail_start[n]..tail_start[n + 1]]`).
    tail_start: Vec<u32>,
    tail_ids: Vec<u32>,
    /// The tails the fixed names (keywords, builtins, ...) start with: the marks for
    /// a read typed from its first byte, before the frames' names are added.
    pub(crate) fixed: Vec<u64>,
    pub(crate) fixed_names: Vec<String>,
    /// For the bytes that end a comment or a string body (newline, quotes,
    /// backslash) and those at which a waiting name's statement or bracket decides it
    /// (`=`, `;`, commas and closing brackets, see `NamesLayer::refusing_bytes`): the
    /// tokens holding the byte, as bitset words.
    holding: Vec<(u8, Vec<u64>)>,
    /// The tokens without identifier bytes (and without a tail), as bitset words.
    pub(crate) bare: Vec<u64>,
    /// The same tokens by their first byte: each with the bytes of [`STOPS`] it holds
    /// after that byte (bit `i`: `STOPS[i]`).
    pub(crate) bare_by_first: Vec<(u8, Vec<(u32, u16)>)>,
    /// The groups of at least [`BIG`] tokens, with their tokens as bitset words.
    pub(crate) big: Vec<(u32, Vec<u64>)>,
    /// The tokens of the other groups, as bitset words.
    pub(crate) small: Vec<u64>,
}

impl TokenClasses {
    /// Groups `tokens` (every token id's bytes).
    pub fn new(tokens: &[Vec<u8>]) -> Self {
        let mut index: std::collections::HashMap<(&[u8], Option<u8>), u32> =
            std::collections::HashMap::new();
        let mut groups = Vec::new();
        let (mut leads, mut tails) = (ByteTrie::new(), ByteTrie::new());
        let mut paths = Vec::new();
        let (mut group, mut tail) = (Vec::with_capacity(tokens.len()), Vec::new());
        for bytes in tokens {
            let run = bytes.iter().rev().take_while(|&&b| is_ident_byte(b)).count();
            let (lead, rest) = bytes.split_at(bytes.len() - run);
            let first = rest.first().map(|b| if b.is_ascii_digit() { b'0' } else { b'a' });
            let g = *index.entry((lead, first)).or_insert_with(|| {
                let path = paths.len();
                let mut node = 0;
                for &b in lead {
                    node = leads.insert_child(node, b);
                    paths.push(node);
                }
                let last_ident = lead.iter().rposition(|&b| is_ident_byte(b)).map_or(0, |i| i + 1);
                groups.push(Group { lead: lead.to_vec(), first, last_ident, path });
                groups.len() as u32 - 1
            });
            group.push(g);
            tail.push(tails.insert(rest));
        }
        let fixed_names: Vec<String> = Machine::fixed_names()
            .into_iter()
            .chain(super::builtin_set().iter().cloned())
            .collect();
        let mut fixed = vec![0; tails.words()];
        for n in &fixed_names {
            tails.mark_prefixes(n.as_bytes(), &mut fixed);
        }
        let words = tokens.len().div_ceil(64);
        let holding = STOPS
            .iter()
            .map(|&stop| {
                (stop, bitset(words, (0..tokens.len()).filter(|&t| tokens[t].contains(&stop))))
            })
            .collect();
        let (big, small) = by_size(&group, groups.len(), words);
        let bare = bitset(
            words,
            (0..tokens.len()).filter(|&t| {
                let g = &groups[group[t] as usize];
                g.first.is_none() && g.last_ident == 0
            }),
        );
        let bare_by_first = by_first_byte(tokens, &bare);
        let lone = lone_leads(&leads, &groups, &paths);
        let (tail_start, tail_ids) = by_node(&tail, tails.children.len());
        Self {
            group,
            tail,
            groups,
            leads,
            lone,
            paths,
            tails,
            tail_start,
            tail_ids,
            fixed,
            fixed_names,
            holding,
            bare,
            bare_by_first,
            big,
            small,
        }
    }

    /// The tokens holding `stop`, where it is one of the bytes kept.
    pub(crate) fn holding(&self, stop: u8) -> Option<&[u64]> {
        self.holding.iter().find(|(b, _)| *b == stop).map(|(_, w)| w.as_slice())
    }

    /// The tokens whose tail is `node`.
    pub(crate) fn tokens_of_tail(&self, node: usize) -> &[u32] {
        &self.tail_ids[self.tail_start[node] as usize..self.tail_start[node + 1] as usize]
    }

    /// The number of token ids.
    pub fn len(&self) -> usize {
        self.group.len()
    }

    /// Whether there is no token.
    pub fn is_empty(&self) -> bool {
        self.group.is_empty()
    }
}

/// The bytes whose tokens [`TokenClasses`] keeps as bitsets: those that end a comment
/// or a string body and those at which a waiting name may be decided.
pub(crate) const STOPS: &[u8; 10] = b"\n'\"\\=;,)]}";

/// The bits of [`STOPS`] in the 256-bit set `set`; `None` where it holds another byte.
pub(crate) fn stops_of(set: &[u64; 4]) -> Option<u16> {
    let mut rest = *set;
    let mut bits = 0u16;
    for (i, &b) in STOPS.iter().enumerate() {
        if rest[b as usize / 64] >> (b % 64) & 1 == 1 {
            bits |= 1 << i;
            rest[b as usize / 64] &= !(1 << (b % 64));
        }
    }
    (rest == [0; 4]).then_some(bits)
}

/// The tokens of `bare` by first byte, with the [`STOPS`] each holds after it.
fn by_first_byte(tokens: &[Vec<u8>], bare: &[u64]) -> Vec<(u8, Vec<(u32, u16)>)> {
    let mut by: Vec<Vec<(u32, u16)>> = vec![Vec::new(); 256];
    for (t, bytes) in tokens.iter().enumerate() {
        let Some((&first, rest)) = bytes.split_first().filter(|_| get(bare, t)) else { continue };
        let stops = STOPS
            .iter()
            .enumerate()
            .filter(|(_, b)| rest.contains(b))
            .fold(0u16, |bits, (i, _)| bits | 1 << i);
        by[first as usize].push((t as u32, stops));
    }
    by.into_iter()
        .enumerate()
        .filter(|(_, ids)| !ids.is_empty())
        .map(|(b, ids)| (b as u8, ids))
        .collect()
}

fn bitset(words: usize, ids: impl Iterator<Item = usize>) -> Vec<u64> {
    let mut bits = vec![0; words];
    for t in ids {
        set(&mut bits, t);
    }
    bits
}

/// The token ids by tail node, as (start per node, ids).
fn by_node(tail: &[u32], nodes: usize) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; nodes + 1];
    for &n in tail {
        start[n as usize + 1] += 1;
    }
    for n in 0..nodes {
        start[n + 1] += start[n];
    }
    let mut next = start.clone();
    let mut ids = vec![0u32; tail.len()];
    for (t, &n) in tail.iter().enumerate() {
        ids[next[n as usize] as usize] = t as u32;
        next[n as usize] += 1;
    }
    (start, ids)
}

/// The groups of at least [`BIG`] tokens with their tokens, and the tokens of the
/// others, as bitset words (`group`: each token's group).
fn by_size(group: &[u32], groups: usize, words: usize) -> (Vec<(u32, Vec<u64>)>, Vec<u64>) {
    let mut sizes = vec![0usize; groups];
    for &g in group {
        sizes[g as usize] += 1;
    }
    let tokens = 0..group.len();
    let big = (0..groups)
        .filter(|&g| sizes[g] >= BIG)
        .map(|g| (g as u32, bitset(words, tokens.clone().filter(|&t| group[t] as usize == g))))
        .collect();
    let small = bitset(words, tokens.filter(|&t| sizes[group[t] as usize] < BIG));
    (big, small)
}

/// Per lead-trie node, whether it has one child and no group's lead ends there with an
/// identifier tail (see `TokenClasses::lone`).
fn lone_leads(leads: &ByteTrie, groups: &[Group], paths: &[u32]) -> Vec<bool> {
    let mut lone: Vec<bool> = leads.children.iter().map(|kids| kids.len() == 1).collect();
    for g in groups.iter().filter(|g| g.first.is_some() && !g.lead.is_empty()) {
        lone[paths[g.path + g.lead.len() - 1] as usize] = false;
    }
    lone
}
