//! Mode `names`' dead-end check (issue 34): where a token leaves the text inside an
//! identifier that only keywords of reads may complete (` yi` -> `yield`, ` no` ->
//! `not`), the grammar must take one of them, ended. MBPP/298 wrote `... and yi`,
//! whose only way on, `yield`, no expression takes after `and`: the grammar takes `yi`
//! as a name's start and the names layer as `yield`'s, and neither alone sees that
//! nothing goes on.
//!
//! Only the vocabulary's keyword parts are checked (tokens whose trailing identifier
//! run lies inside such a keyword: [`NamesLayer::may_type_a_read_keyword`]), and only
//! where the run may end in one ([`NamesLayer::may_end_in_a_read_keyword`]). A token's
//! keywords are asked of the names layer: where the token only extends the identifier
//! being typed, of the layer itself ([`NamesLayer::keyword_rests_typing`]); else of a
//! copy that read the token's lead and a stand-in first byte of the run
//! ([`NamesLayer::read_lead_of_a_run`]), shared by the tokens with that lead at the
//! position. The grammar's verdicts are shared per text (` y`, ` yi` and ` yield` all
//! ask for ` yield `).

use espalier_constraint::{Constraint, GrammarConstraint, TokenSet, Vocab};
use espalier_names::layer::{KeywordPart, NamesLayer};

/// The layer after each lead (a token's bytes before its trailing run) and a stand-in
/// first byte of the run, read at one position: the copies' allocations are reused
/// across positions.
#[derive(Default)]
struct LeadCopies {
    leads: Vec<Vec<u8>>,
    layers: Vec<NamesLayer>,
    /// Whether the layer took the lead.
    took: Vec<bool>,
    used: usize,
}

impl LeadCopies {
    /// The layer after `lead` read on `layer`, or `None` where it refuses it.
    fn after(&mut self, layer: &NamesLayer, lead: &[u8]) -> Option<&NamesLayer> {
        let i = match self.leads[..self.used].iter().position(|l| l == lead) {
            Some(i) => i,
            None => self.read(layer, lead),
        };
        self.took[i].then_some(&self.layers[i])
    }

    fn read(&mut self, layer: &NamesLayer, lead: &[u8]) -> usize {
        let i = self.used;
        if i == self.layers.len() {
            self.leads.push(Vec::new());
            self.layers.push(layer.clone());
            self.took.push(false);
        } else {
            self.layers[i].clone_from(layer);
        }
        self.leads[i].clear();
        self.leads[i].extend_from_slice(lead);
        self.took[i] = self.layers[i].read_lead_of_a_run(lead);
        self.used += 1;
        i
    }
}

/// The check's per-vocabulary part (the keyword parts) and its per-position scratch.
#[derive(Clone)]
pub(crate) struct KeywordCheck {
    parts: std::sync::Arc<Vec<(u32, KeywordPart)>>,
    copies: LeadCopiesCell,
}

/// Scratch is not shared between copies of a constraint: a clone starts empty.
#[derive(Default)]
struct LeadCopiesCell(LeadCopies);

impl Clone for LeadCopiesCell {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl KeywordCheck {
    /// The keyword parts of `vocab`.
    pub(crate) fn new(vocab: &Vocab) -> Self {
        Self::from_parts(std::sync::Arc::new(keyword_parts(vocab)))
    }

    /// A check over `parts` (a kit's, shared).
    pub(crate) fn from_parts(parts: std::sync::Arc<Vec<(u32, KeywordPart)>>) -> Self {
        Self { parts, copies: LeadCopiesCell::default() }
    }

    /// The keyword parts, for a kit to share.
    pub(crate) fn parts(&self) -> &std::sync::Arc<Vec<(u32, KeywordPart)>> {
        &self.parts
    }

    /// Removes from `mask` (tokens `grammar` and `layer` both take) the keyword parts
    /// after which the text cannot go on.
    pub(crate) fn remove_dead_ends(
        &mut self,
        grammar: &GrammarConstraint,
        layer: &NamesLayer,
        vocab: &Vocab,
        mask: &mut TokenSet,
    ) {
        let copies = &mut self.copies.0;
        copies.used = 0;
        let mut verdicts = Vec::new();
        for (id, part) in self.parts.iter() {
            let id = *id;
            if !mask.contains(id as usize) {
                continue;
            }
            let bytes = vocab.bytes(id);
            if !layer.may_end_in_keyword_part(bytes, part) {
                continue;
            }
            let (lead, run) = bytes.split_at(part.run_start());
            let rests = if lead.is_empty() && layer.types_an_identifier() {
                layer.keyword_rests_typing(run)
            } else {
                match copies.after(layer, lead) {
                    Some(after) => after.keyword_rests_of_run(run),
                    None => {
                        mask.remove(id as usize);
                        continue;
                    }
                }
            };
            if !grammar_takes_one(grammar, bytes, &rests, &mut verdicts) {
                mask.remove(id as usize);
            }
        }
    }

    /// Whether the text goes on after `bytes` (which `grammar` and `layer` take): the
    /// check for one token, on a copy of its own.
    pub(crate) fn keeps(grammar: &GrammarConstraint, layer: &NamesLayer, bytes: &[u8]) -> bool {
        if !layer.may_end_in_a_read_keyword(bytes) {
            return true;
        }
        let mut after = layer.clone();
        after.push_bytes(bytes)
            && grammar_takes_one(grammar, bytes, &after.keyword_rests(), &mut Vec::new())
    }
}

/// Whether `grammar` takes `bytes` followed by one of the keyword `rests` and a
/// space (`true` where there are none: something else may follow). `verdicts` keeps
/// the grammar's answers at the position.
fn grammar_takes_one(
    grammar: &GrammarConstraint,
    bytes: &[u8],
    rests: &[&[u8]],
    verdicts: &mut Vec<(Vec<u8>, bool)>,
) -> bool {
    rests.is_empty()
        || rests.iter().any(|rest| {
            let text = [bytes, rest, b" "].concat();
            if let Some((_, verdict)) = verdicts.iter().find(|(t, _)| *t == text) {
                return *verdict;
            }
            let verdict = grammar.allows(&text);
            verdicts.push((text, verdict));
            verdict
        })
}

/// The tokens of `vocab` that may type part of a keyword of reads
/// ([`NamesLayer::may_type_a_read_keyword`]), with what their bytes tell of the check.
fn keyword_parts(vocab: &Vocab) -> Vec<(u32, KeywordPart)> {
    (0..vocab.len() as u32)
        .filter(|&id| !vocab.is_special(id) && NamesLayer::may_type_a_read_keyword(vocab.bytes(id)))
        .map(|id| (id, KeywordPart::of(vocab.bytes(id))))
        .collect()
}
