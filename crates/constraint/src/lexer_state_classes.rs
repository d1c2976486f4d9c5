//! The lexer DFA's states in classes, for the lexeme-start summaries
//! ([`crate::lexeme_starts`]): states with the same winners after every continuation
//! (Moore's partition refinement), states numbered by their reachable set and by their
//! winner list. Facts of the DFA alone (no trie, no grammar), computed once per
//! (grammar, vocabulary) when the summaries are built.

use std::collections::HashMap;

use espalier_grammar::{LexerDfa, TermSet, TerminalId};

/// The representative (smallest equivalent state) of every state of `dfa`:
/// Moore's partition refinement, starting from "same winners" and splitting by the
/// classes of the successors on every byte class, until nothing splits.
pub(crate) fn equivalent_states(dfa: &LexerDfa) -> Vec<u32> {
    let n = dfa.num_states();
    let mut reps = vec![0u8; dfa.num_classes()];
    for b in 0..=255u8 {
        reps[dfa.byte_class(b) as usize] = b;
    }
    let mut class: Vec<u32> = {
        let mut ids: HashMap<&[TerminalId], u32> = HashMap::new();
        dfa.states()
            .map(|s| {
                let next = ids.len() as u32;
                *ids.entry(dfa.winners(s)).or_insert(next)
            })
            .collect()
    };
    let mut count = class.iter().max().map_or(0, |&c| c + 1);
    let mut sig: Vec<u32> = Vec::with_capacity(reps.len() + 1);
    loop {
        let mut ids: HashMap<Vec<u32>, u32> = HashMap::with_capacity(count as usize * 2);
        let next: Vec<u32> = dfa
            .states()
            .map(|s| {
                sig.clear();
                sig.push(class[s.index()]);
                sig.extend(reps.iter().map(|&b| class[dfa.next(s, b).index()]));
                let fresh = ids.len() as u32;
                *ids.entry(sig.clone()).or_insert(fresh)
            })
            .collect();
        let new_count = ids.len() as u32;
        class = next;
        if new_count == count {
            break;
        }
        count = new_count;
    }
    let mut first = vec![u32::MAX; count as usize];
    (0..n as u32)
        .map(|s| {
            let f = &mut first[class[s as usize] as usize];
            if *f == u32::MAX {
                *f = s;
            }
            *f
        })
        .collect()
}

/// Every DFA state's reachable set, numbered by distinct value: the sets and each
/// state's set id (`None` past 65,535 sets).
pub(crate) fn reachable_sets(dfa: &LexerDfa) -> Option<(Vec<TermSet>, Vec<u16>)> {
    let mut set_ids: HashMap<Vec<u64>, u16> = HashMap::new();
    let mut sets: Vec<TermSet> = Vec::new();
    let mut state_set: Vec<u16> = Vec::with_capacity(dfa.num_states());
    for q in dfa.states() {
        let r = dfa.reachable(q);
        let key: Vec<u64> = r.iter().map(|t| u64::from(t.as_u32())).collect();
        let id = match set_ids.get(&key) {
            Some(&id) => id,
            None => {
                let id = u16::try_from(sets.len()).ok()?;
                sets.push(*r);
                set_ids.insert(key, id);
                id
            }
        };
        state_set.push(id);
    }
    Some((sets, state_set))
}

/// The classes of equivalent states from each state's representative: each class's
/// representative and each state's class (`None` past `max` classes).
pub(crate) fn state_classes(state_rep: &[u32], max: usize) -> Option<(Vec<u32>, Vec<u16>)> {
    let mut class_rep: Vec<u32> = Vec::new();
    let mut class_of_rep: HashMap<u32, u16> = HashMap::new();
    let mut state_class: Vec<u16> = Vec::with_capacity(state_rep.len());
    for &r in state_rep {
        let next = class_rep.len();
        let id = *class_of_rep.entry(r).or_insert_with(|| {
            class_rep.push(r);
            next as u16
        });
        if class_rep.len() > max {
            return None;
        }
        state_class.push(id);
    }
    Some((class_rep, state_class))
}

/// Every DFA state's winners, numbered by distinct list.
pub(crate) fn winner_ids(dfa: &LexerDfa) -> Vec<u32> {
    let mut ids: HashMap<&[TerminalId], u32> = HashMap::new();
    dfa.states()
        .map(|q| {
            let next = ids.len() as u32;
            *ids.entry(dfa.winners(q)).or_insert(next)
        })
        .collect()
}
