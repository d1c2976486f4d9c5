//! The layer's verdicts on a whole vocabulary at one position (mode `names`' mask),
//! without reading every token on its own copy of the layer.
//!
//! The tokens are in groups ([`TokenClasses`]: the same lead before a trailing
//! identifier run, and how that run starts). The run's first byte moves the layer the
//! same way whichever identifier byte it is (only a digit and an identifier start
//! differ: an identifier goes on, a number or an identifier starts, a string or a
//! comment takes it); the run's other bytes then only extend the identifier being
//! typed, or are inert. So the layer reads each group's lead and a stand-in first
//! byte (`a` or `0`) once, on a copy, and a token's verdict is its group's, except
//! where that copy is typing a checked read: then it is whether some name the read may
//! start begins with the identifier typed before the run followed by the run (the
//! prefix check [`NamesLayer::takes`] makes at the end of a token), looked up in marks
//! over the vocabulary's tails: each name is walked once through the tails' trie.
//!
//! The leads are read prefix by prefix, each prefix once per position (the leads'
//! trie), and a token without identifier bytes is taken as soon as the rest of its
//! lead holds no byte at which a name waiting may be refused
//! (`NamesLayer::refusing_bytes`: every refusal is of a name typed or waiting): at the
//! position itself, by bitset words (tokens holding `=`, `;`, a comma or a closing
//! bracket), or after its first bytes. In a comment or a string body only the tokens
//! holding a byte that ends it are judged. The big groups (an identifier, or a space
//! and an identifier: most of the vocabulary) are judged by bitset words. Only where
//! the identifier typed before is not whole UTF-8 is each token of a group read on
//! its own.
//!
//! Exactness: `layer/tests.rs` checks every token's verdict against
//! [`NamesLayer::push_bytes`] at every offset of its texts, and
//! `crates/decode/tests/it/names_masks.rs` the whole mask against the brute-force set on
//! HumanEval.

use super::token_classes::{get, set, stops_of, TokenClasses};
use super::NamesLayer;

/// A group's verdict at the position.
#[derive(Clone, Copy, Debug)]
enum Verdict {
    Take,
    Refuse,
    /// The tails marked in the position's `marks[i]`.
    Tails(usize),
    /// Each token read on its own.
    Each,
}

/// Whether `bytes` holds a member of the 256-bit set `set`.
fn hits(set: &[u64; 4], bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| set[b as usize / 64] >> (b % 64) & 1 == 1)
}

/// Tail marks for one identifier typed before a tail.
#[derive(Clone, Debug, Default)]
struct Marks {
    before: Vec<u8>,
    /// Made from the position's own names (else from a group copy's).
    own: bool,
    /// Per tail node.
    tails: Vec<u64>,
    /// Per token (for the bulk groups), made when first needed.
    tokens: Option<Vec<u64>>,
}

/// The per-position scratch of the vocabulary's verdicts (reused across positions;
/// a clone starts empty).
#[derive(Debug)]
pub struct VocabMask {
    scratch: NamesLayer,
    /// Per group: the position it was judged at, and its verdict there.
    stamp: Vec<u32>,
    verdict: Vec<Verdict>,
    /// Per node of the leads' trie: the position it was read at, and its slot
    /// (`REFUSED`: the layer refused it).
    node_stamp: Vec<u32>,
    node_slot: Vec<u32>,
    /// Per slot (a lead prefix read at the position): the index in `states` of the
    /// layer after it, and the bytes at which a token without identifier bytes may be
    /// refused from there. A prefix that is its trie parent's only use passes the
    /// parent's layer on instead of a copy ([`TokenClasses::lone`]): the parent's
    /// slot then keeps only its bytes.
    slot_state: Vec<u32>,
    refusing_after: Vec<Option<[u64; 4]>>,
    slots_used: usize,
    states: Vec<NamesLayer>,
    states_used: usize,
    position: u32,
    /// The bytes at which a token without identifier bytes may be refused at the
    /// position (`NamesLayer::refusing_bytes`).
    refusing: Option<[u64; 4]>,
    marks: Vec<Marks>,
    used: usize,
    /// The candidates to judge one by one.
    todo: Vec<usize>,
    /// The tokens taken without a look (`VocabMask::bare_taken`).
    taken: Vec<u64>,
    words: Vec<u64>,
}

impl Clone for VocabMask {
    fn clone(&self) -> Self {
        Self::new()
    }
}

impl Default for VocabMask {
    fn default() -> Self {
        Self::new()
    }
}

impl VocabMask {
    pub fn new() -> Self {
        Self {
            scratch: NamesLayer::new(),
            stamp: Vec::new(),
            verdict: Vec::new(),
            node_stamp: Vec::new(),
            node_slot: Vec::new(),
            slot_state: Vec::new(),
            refusing_after: Vec::new(),
            slots_used: 0,
            states: Vec::new(),
            states_used: 0,
            position: 0,
            refusing: None,
            marks: Vec::new(),
            used: 0,
            todo: Vec::new(),
            taken: Vec::new(),
            words: Vec::new(),
        }
    }

    /// Sets in `refused` (bitset words, as many as `candidates`') each of `candidates`
    /// (bitset words over the token ids of `classes`' vocabulary, `tokens` their
    /// bytes; `skip` left out) that `layer` does not take, and clears the other bits:
    /// exactly the tokens whose bytes [`NamesLayer::push_bytes`] refuses after the text
    /// `layer` read.
    pub fn refused(
        &mut self,
        layer: &NamesLayer,
        classes: &TokenClasses,
        tokens: &[Vec<u8>],
        candidates: &[u64],
        skip: Option<usize>,
        refused: &mut [u64],
    ) {
        let n = candidates.len().min(refused.len()).min(classes.small.len());
        refused.fill(0);
        let mut words = std::mem::take(&mut self.words);
        words.clear();
        words.extend_from_slice(&candidates[..n]);
        if let Some(t) = skip.filter(|&t| t / 64 < n) {
            words[t / 64] &= !(1 << (t % 64));
        }
        if layer.dead {
            refused[..n].copy_from_slice(&words);
            self.words = words;
            return;
        }
        self.start_position(layer, classes);
        // In a comment or a string body, only the tokens holding a byte that ends it
        // are judged: the others cause no event. (`bulk`: the stops have bitsets.)
        let stops = layer.lexer.inert_stops();
        let holding = stops.map(|[a, b]| (classes.holding(a), classes.holding(b)));
        let bulk = match holding {
            Some((Some(a), Some(b))) => {
                for (i, w) in words.iter_mut().enumerate() {
                    *w &= a[i] | b[i];
                }
                true
            }
            Some(_) => false,
            None => true,
        };
        // Tokens without identifier bytes holding no byte at which a name waiting may
        // be refused are taken (where the bytes have bitsets).
        let taken = match self.refusing {
            Some(set) => self.bare_taken(classes, &set),
            None => Some(self.bare_taken_after_first(layer, classes, &words)),
        };
        let mut todo = std::mem::take(&mut self.todo);
        todo.clear();
        let small = |i: usize| {
            let taken = taken.as_ref().map_or(0, |t| t[i]);
            if bulk {
                classes.small[i] & !taken
            } else {
                u64::MAX
            }
        };
        push_ids(words.iter().enumerate().map(|(i, &w)| (i, w & small(i))), &mut todo);
        for &t in &todo {
            let Some(bytes) = tokens.get(t).filter(|_| t < classes.len()) else { continue };
            if stops.is_some() && layer.takes_inertly(bytes) {
                continue;
            }
            if !self.token_takes(layer, classes, tokens, t) {
                set(refused, t);
            }
        }
        if bulk {
            for (g, members) in &classes.big {
                self.judge_bulk(layer, classes, tokens, *g as usize, members, &words, refused);
            }
        }
        self.todo = todo;
        self.words = words;
        if let Some(t) = taken {
            self.taken = t;
        }
    }

    /// The tokens without identifier bytes that hold no byte of `set`, as bitset
    /// words; `None` where a byte of `set` has no bitset of its tokens.
    fn bare_taken(&mut self, classes: &TokenClasses, set: &[u64; 4]) -> Option<Vec<u64>> {
        let mut taken = std::mem::take(&mut self.taken);
        taken.clone_from(&classes.bare);
        for b in 0..=255u8 {
            if set[b as usize / 64] >> (b % 64) & 1 == 1 {
                let Some(holding) = classes.holding(b) else {
                    self.taken = taken;
                    return None;
                };
                for (t, h) in taken.iter_mut().zip(holding) {
                    *t &= !h;
                }
            }
        }
        Some(taken)
    }

    /// Where any byte may refuse at the position (an identifier is being typed, which
    /// the next byte ends): the candidate tokens without identifier bytes taken after
    /// their first byte, as bitset words. Per first byte `b` the layer reads it once
    /// (the leads' trie node, as [`VocabMask::judge`] would); where the bytes at which
    /// a name waiting may be refused from there are known stops that `b` is not, the
    /// tokens holding none of them after `b` are taken: [`VocabMask::judge`]'s verdict
    /// on their groups.
    fn bare_taken_after_first(
        &mut self,
        layer: &NamesLayer,
        classes: &TokenClasses,
        candidates: &[u64],
    ) -> Vec<u64> {
        let mut taken = std::mem::take(&mut self.taken);
        taken.clear();
        taken.resize(classes.bare.len(), 0);
        for (first, tokens) in &classes.bare_by_first {
            if !tokens.iter().any(|&(t, _)| get(candidates, t as usize)) {
                continue;
            }
            let Some(node) = classes.leads.child(0, *first) else { continue };
            let Some(slot) = self.lead_state(layer, node, None, false, *first) else { continue };
            let Some(refusing) = self.refusing_after[slot] else { continue };
            if hits(&refusing, &[*first]) {
                continue;
            }
            let Some(stops) = stops_of(&refusing) else { continue };
            for &(t, holds) in tokens {
                if holds & stops == 0 {
                    set(&mut taken, t as usize);
                }
            }
        }
        taken
    }

    /// The verdict on token `t`.
    fn token_takes(
        &mut self,
        layer: &NamesLayer,
        classes: &TokenClasses,
        tokens: &[Vec<u8>],
        t: usize,
    ) -> bool {
        match self.group_verdict(layer, classes, classes.group[t] as usize) {
            Verdict::Take => true,
            Verdict::Refuse => false,
            Verdict::Tails(i) => get(&self.marks[i].tails, classes.tail[t] as usize),
            Verdict::Each => {
                self.scratch.clone_from(layer);
                self.scratch.takes(&tokens[t]) // `refused` checked `t`
            }
        }
    }

    /// The verdicts on a big group's candidates (`members` and `words`), by words.
    #[allow(clippy::too_many_arguments)]
    fn judge_bulk(
        &mut self,
        layer: &NamesLayer,
        classes: &TokenClasses,
        tokens: &[Vec<u8>],
        g: usize,
        members: &[u64],
        words: &[u64],
        refused: &mut [u64],
    ) {
        if !words.iter().zip(members).any(|(w, m)| w & m != 0) {
            return;
        }
        match self.group_verdict(layer, classes, g) {
            Verdict::Take => {}
            Verdict::Refuse => {
                for (r, (w, m)) in refused.iter_mut().zip(words.iter().zip(members)) {
                    *r |= w & m;
                }
            }
            Verdict::Tails(i) => {
                let allowed = self.marked_tokens(classes, i);
                for (r, ((w, m), a)) in
                    refused.iter_mut().zip(words.iter().zip(members).zip(allowed))
                {
                    *r |= w & m & !a;
                }
            }
            Verdict::Each => {
                let mut ids = Vec::new();
                push_ids(words.iter().zip(members).map(|(w, m)| w & m).enumerate(), &mut ids);
                for t in ids {
                    let Some(bytes) = tokens.get(t) else { continue };
                    self.scratch.clone_from(layer);
                    if !self.scratch.takes(bytes) {
                        set(refused, t);
                    }
                }
            }
        }
    }

    /// The tokens whose tails `marks[i]` marks, as bitset words.
    fn marked_tokens(&mut self, classes: &TokenClasses, i: usize) -> &[u64] {
        let marks = &mut self.marks[i];
        if marks.tokens.is_none() {
            let mut bits = vec![0u64; classes.small.len()];
            let mut nodes = Vec::new();
            push_ids(marks.tails.iter().copied().enumerate(), &mut nodes);
            for node in nodes {
                for &t in classes.tokens_of_tail(node) {
                    set(&mut bits, t as usize);
                }
            }
            marks.tokens = Some(bits);
        }
        marks.tokens.as_deref().unwrap_or(&[])
    }

    fn start_position(&mut self, layer: &NamesLayer, classes: &TokenClasses) {
        if self.stamp.len() != classes.groups.len()
            || self.node_stamp.len() != classes.leads.len()
            || self.position == u32::MAX
        {
            self.stamp = vec![0; classes.groups.len()];
            self.verdict = vec![Verdict::Each; classes.groups.len()];
            self.node_stamp = vec![0; classes.leads.len()];
            self.node_slot = vec![REFUSED; classes.leads.len()];
            self.position = 0;
        }
        self.position += 1;
        self.used = 0;
        self.slots_used = 0;
        self.states_used = 0;
        self.refusing = layer.refusing_bytes();
    }

    /// Group `g`'s verdict at this position (judged once).
    fn group_verdict(&mut self, layer: &NamesLayer, classes: &TokenClasses, g: usize) -> Verdict {
        if self.stamp[g] != self.position {
            self.stamp[g] = self.position;
            self.verdict[g] = self.judge(layer, classes, g);
        }
        self.verdict[g]
    }

    /// The slot of the lead prefix at `node` (read from the one at slot `parent`,
    /// `None`: the position's layer, and `byte`; `lone_parent`: the parent's layer is
    /// needed for nothing else, [`TokenClasses::lone`]); `None` where the layer
    /// refuses it.
    fn lead_state(
        &mut self,
        layer: &NamesLayer,
        node: u32,
        parent: Option<usize>,
        lone_parent: bool,
        byte: u8,
    ) -> Option<usize> {
        let n = node as usize;
        if self.node_stamp[n] != self.position {
            self.node_stamp[n] = self.position;
            let slot = self.slots_used;
            if self.slot_state.len() == slot {
                self.slot_state.push(0);
                self.refusing_after.push(None);
            }
            self.slots_used += 1;
            let from = parent.map(|p| self.slot_state[p] as usize);
            let s = match from.filter(|_| lone_parent) {
                Some(s) => s,
                None => {
                    let s = self.states_used;
                    if self.states.len() == s {
                        self.states.push(NamesLayer::new());
                    }
                    self.states_used += 1;
                    let (done, rest) = self.states.split_at_mut(s);
                    rest[0].clone_from(from.map_or(layer, |f| &done[f]));
                    s
                }
            };
            self.slot_state[slot] = s as u32;
            let state = &mut self.states[s];
            state.machine.lazy = true;
            self.node_slot[n] = if state.push_byte(byte) {
                self.refusing_after[slot] = state.refusing_bytes();
                slot as u32
            } else {
                REFUSED
            };
        }
        Some(self.node_slot[n]).filter(|&s| s != REFUSED).map(|s| s as usize)
    }

    /// Reads group `g`'s lead (prefix by prefix, each read once per position) and
    /// stand-in first byte on a copy of `layer`. A group without a tail is taken as
    /// soon as the rest of its lead has no identifier byte and no byte at which a name
    /// waiting may be refused.
    fn judge(&mut self, layer: &NamesLayer, classes: &TokenClasses, g: usize) -> Verdict {
        let group = &classes.groups[g];
        let lead = &group.lead;
        let path = &classes.paths[group.path..group.path + lead.len()];
        let (mut slot, mut refusing) = (None, self.refusing);
        for k in 0..=lead.len() {
            if group.first.is_none()
                && k >= group.last_ident
                && (k == lead.len() || refusing.is_some_and(|set| !hits(&set, &lead[k..])))
            {
                return Verdict::Take;
            }
            let (Some(&byte), Some(&node)) = (lead.get(k), path.get(k)) else { break };
            let lone_parent = k > 0 && classes.lone[path[k - 1] as usize];
            match self.lead_state(layer, node, slot, lone_parent, byte) {
                Some(s) => (slot, refusing) = (Some(s), self.refusing_after[s]),
                None => return Verdict::Refuse,
            }
        }
        let Some(first) = group.first else { return Verdict::Take };
        let (done, copy) = (&self.states, &mut self.scratch);
        copy.clone_from(slot.map_or(layer, |s| &done[self.slot_state[s] as usize]));
        copy.machine.lazy = true;
        if !copy.push_byte(first) {
            return Verdict::Refuse;
        }
        // No identifier typed (a number, a string, a comment), or not a checked read:
        // the tail's other bytes cannot be refused.
        if !copy.machine.ident_due() || !copy.machine.checks_typed(&copy.frames) {
            return Verdict::Take;
        }
        let ident = copy.lexer.ident();
        let before = &ident[..ident.len() - 1];
        if std::str::from_utf8(before).is_err() {
            return Verdict::Each;
        }
        let own = layer.frames.same_names(&copy.frames)
            && layer.machine.local_names().eq(copy.machine.local_names());
        if own {
            let found = self.marks[..self.used].iter().position(|m| m.own && m.before == before);
            if let Some(i) = found {
                return Verdict::Tails(i);
            }
        }
        let before = before.to_vec();
        let copy = &self.scratch;
        let Some(names) = copy.frames.visible_names() else {
            return Verdict::Take; // a star import: every name may be bound
        };
        let i = self.used;
        if self.marks.len() == i {
            self.marks.push(Marks::default());
        }
        self.used += 1;
        let marks = &mut self.marks[i];
        marks.before.clone_from(&before);
        marks.own = own;
        marks.tokens = None;
        mark(classes, &before, names.chain(copy.machine.local_names()), &mut marks.tails);
        Verdict::Tails(i)
    }
}

/// `VocabMask::node_slot` of a lead prefix the layer refuses.
const REFUSED: u32 = u32::MAX;

/// Appends the ids of the set bits of `words` ((index, word) pairs).
fn push_ids(words: impl Iterator<Item = (usize, u64)>, out: &mut Vec<usize>) {
    for (i, mut w) in words {
        while w != 0 {
            out.push(i * 64 + w.trailing_zeros() as usize);
            w &= w - 1;
        }
    }
}

/// Marks in `bits` the tails `t` for which some name (the fixed ones, the builtins and
/// `names`) starts with `before` followed by `t`.
fn mark<'a>(
    classes: &TokenClasses,
    before: &[u8],
    names: impl Iterator<Item = &'a str>,
    bits: &mut Vec<u64>,
) {
    let tails = &classes.tails;
    if before.is_empty() {
        bits.clone_from(&classes.fixed);
    } else {
        bits.clear();
        bits.resize(tails.words(), 0);
        for n in &classes.fixed_names {
            if let Some(rest) = n.as_bytes().strip_prefix(before) {
                tails.mark_prefixes(rest, bits);
            }
        }
    }
    for n in names {
        if let Some(rest) = n.as_bytes().strip_prefix(before) {
            tails.mark_prefixes(rest, bits);
        }
    }
}
