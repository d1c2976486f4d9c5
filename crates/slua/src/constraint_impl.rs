//! The tree of parsers as an [`espalier_constraint::Constraint`] ([`SluaConstraint`]
//! holds the state): exact masks from one walk of the vocabulary's byte trie
//! ([`crate::trie_walk`]), commits byte by byte, the finishing mask
//! ([`crate::finishing`]) and the inspection the visualizer draws.

use espalier_constraint::{Commit, Constraint, Inspection, Rejected, TokenSet, TreeNode, Vocab};

use crate::slua_constraint::SluaConstraint;
use crate::trie_walk;

/// The visualizer's tree: the live nodes, root first, the innermost one bristling
/// with the next segment's alternatives.
fn node(c: &SluaConstraint) -> TreeNode {
    let env = c.tree().env().clone();
    let mut tree = c.tree().clone();
    let seg = tree.segment();
    let bristles: Vec<TreeNode> = seg
        .alts
        .iter()
        .take(64)
        .map(|a| TreeNode { kind: "alternative".into(), state: a.regex(), children: vec![] })
        .collect();
    let mut node: Option<TreeNode> = None;
    let frames = c.tree().frames();
    for (i, f) in frames.iter().enumerate().rev() {
        let mut children = Vec::new();
        if let Some(n) = node.take() {
            children.push(n);
        } else if i + 1 == frames.len() {
            children = bristles.clone();
        }
        node = Some(TreeNode { kind: f.kind().into(), state: f.describe(&env), children });
    }
    node.unwrap_or_default()
}

impl Constraint for SluaConstraint {
    fn is_complete(&self) -> bool {
        self.tree().has_finished() && self.partial().is_empty()
    }

    fn allows(&self, bytes: &[u8]) -> bool {
        trie_walk::TrieWalk::new(self).accepts_all(bytes)
    }

    fn fill_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) {
        let trie = self.trie(vocab);
        trie_walk::fill(self, &trie, vocab, mask);
        if self.is_complete() {
            mask.insert(vocab.eos() as usize);
        }
    }

    fn commit(&mut self, bytes: &[u8]) -> Result<Commit, Rejected> {
        let mut next = self.clone();
        for (i, &b) in bytes.iter().enumerate() {
            if !next.push(b) {
                return Err(Rejected { offset: i, expected: next.expected() });
            }
        }
        *self = next;
        Ok(Commit::Accepted)
    }

    fn inspect(&self) -> Inspection {
        let mut tree = self.tree().clone();
        Inspection {
            kind: "slua-top".into(),
            tree: Some(node(self)),
            regex: tree.next_regex(),
            stack: self.tree().frames().iter().map(|f| f.kind().to_string()).collect(),
            accept_sequences: Vec::new(),
            remainder: (!self.partial().is_empty())
                .then(|| String::from_utf8_lossy(self.partial()).into_owned()),
            ..Inspection::default()
        }
    }

    /// The finishing mask of [`crate::finishing`] (the inherent method of the same
    /// name); sLua always has one.
    fn fill_finishing_mask(&mut self, vocab: &Vocab, mask: &mut TokenSet) -> bool {
        SluaConstraint::fill_finishing_mask(self, vocab, mask);
        true
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::api::Api;
    use crate::scope::Env;

    /// A talent written token by token: the pieces the mask test feeds.
    const SCRIPT: [&str; 34] = [
        "talent",
        " Zap",
        ";",
        "\n",
        "hook",
        " Do",
        " =",
        " function",
        "(",
        "user",
        ",",
        " target",
        ")",
        "\n ",
        " Damage",
        "(",
        "user",
        ",",
        " 3",
        ");",
        " end",
        ";\n",
        "hook",
        " GetDescription",
        " =",
        " function",
        "(",
        "user)",
        " return",
        " \"",
        "zap",
        "\";",
        " end",
        ";",
    ];

    /// The script's pieces (each once), tokens no step of it takes, and EOS.
    fn vocab() -> Vocab {
        let others = [" Player", "()", "(),", "\"", "eff", "ect", " Explode", " hp", "x"];
        let mut toks: Vec<Vec<u8>> = Vec::new();
        for w in SCRIPT.iter().chain(&others) {
            if !toks.iter().any(|t| t == w.as_bytes()) {
                toks.push(w.as_bytes().to_vec());
            }
        }
        toks.push(b"<eos>".to_vec());
        let n = toks.len() as u32;
        Vocab::new(toks, &[n - 1], n - 1)
    }

    #[test]
    fn masks_follow_the_script_and_allow_eos_only_at_the_end() {
        let env = Rc::new(Env::new(Api::dungeon(), vec![]));
        let v = vocab();
        let mut c = SluaConstraint::new(env);
        let mut mask = TokenSet::empty(v.len());
        for piece in SCRIPT {
            c.fill_mask(&v, &mut mask);
            let id = v.tokens().iter().position(|t| t == piece.as_bytes()).unwrap();
            assert!(
                mask.contains(id),
                "{piece:?} should be allowed; regex {:?}",
                c.inspect().regex
            );
            assert!(!mask.contains(v.eos() as usize));
            assert!(c.allows(piece.as_bytes()));
            assert_eq!(c.commit(piece.as_bytes()), Ok(Commit::Accepted));
        }
        c.fill_mask(&v, &mut mask);
        assert!(c.is_complete());
        assert_eq!(mask.iter().collect::<Vec<_>>(), vec![v.eos() as usize]);
    }

    #[test]
    fn making_a_constraint_builds_what_its_first_masks_need() {
        let env = Rc::new(Env::new(Api::dungeon(), vec![]));
        assert_eq!(env.viability().states(), 0);
        let c = SluaConstraint::new(env.clone());
        assert!(env.viability().states() > 1000, "{}", env.viability().states());
        // Crossing from the kind into the name compiles nothing more: the name's
        // automaton (every taken name excluded) was compiled with the constraint.
        let compiled = env.dfas.len();
        for kind in ["effect", "talent"] {
            let mut c = c.clone();
            assert_eq!(c.commit(format!("{kind} Zap").as_bytes()), Ok(Commit::Accepted));
            assert_eq!(env.dfas.len(), compiled, "after {kind:?}");
        }
    }

    #[test]
    fn hallucinated_calls_are_masked_and_rejected() {
        let env = Rc::new(Env::new(Api::dungeon(), vec![]));
        let mut c = SluaConstraint::new(env);
        c.commit(b"talent Zap;\nhook Do = function(user, target)\n").unwrap();
        assert!(!c.allows(b" Explode"));
        assert!(c.allows(b" Damage(user, 3);"));
        let err = c.commit(b" Explode").unwrap_err();
        assert_eq!(err.offset, 2);
        let ins = c.inspect();
        assert_eq!(ins.kind, "slua-top");
        assert!(ins.tree.is_some() && ins.regex.is_some());
    }
}
