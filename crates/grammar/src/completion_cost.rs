//! [`CompletionCosts`]: how many bytes, at least, a parser stack still needs to become
//! a complete program, under a simple cost model that every plan can be written in.
//! The grammar side of the finishing mask (`espalier-constraint`'s `finishing`).
//!
//! **Cost model.** A plan is a sequence of terminals; each lexed terminal is written as
//! its canonical text ([`LexemePaths`]) preceded by a space when that text could glue
//! onto the lexeme before it (except for the plan's first terminal when the text
//! before it ends in whitespace: the *first-free* phase). Python's layout terminals:
//! `NEWLINE` costs `1 + c` (the newline and the next line's indentation, `c` being the
//! column of the block it is written in), `INDENT` 1 (one more column), `DEDENT` 0;
//! a trailing `NEWLINE DEDENT*` costs nothing (the layer adds it at the end of the
//! text). These charges never under-count the bytes a plan really takes, which is what
//! lets the finishing mask promise that its tokens bring the end strictly nearer.
//!
//! **Per grammar** (once, [`crate::Language::completion_costs`]): for every symbol and
//! every production suffix `β` (a dotted item's rest), the least cost of deriving it,
//! in four variants (normal, first-free, at the end of the text, both). Costs depend on
//! the block column `c` linearly per derivation (`a + b·c`, `b` the number of line
//! starts), so each variant is a small Pareto set of `(a, b)` pairs.
//!
//! **Per stack** ([`CompletionCosts::stack_cost`]): a Dijkstra search over virtual
//! stacks `stack[..j] ++ [g]`: completing a kernel item `A -> α · β` of the top state
//! costs `β` and pops `α`, then goes to `goto(·, A)`. Item cores are valid for every
//! stack reaching a state (merged LR tables only join lookaheads), so every path found
//! spells a real completion; closure items never beat the kernel item that caused them,
//! so the search is exact under the cost model. Typically a few hundred configurations.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use std::sync::Arc;

use crate::grammar::{Grammar, NonterminalId, Symbol, TerminalId};
use crate::ids::LrState;
use crate::layers::LayoutTerminals;
use crate::lexeme_paths::LexemePaths;
use crate::lexer_dfa::LexerDfa;
use crate::lr_table::{LrTable, AUGMENTED};

/// Derivations with more line starts than this are not tracked (Python's shortest
/// compound statements need two or three).
const MAX_LINES: u32 = 8;

/// Costs `a + b·c` that no other pair beats for every column `c >= 0`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Pareto(Vec<(u32, u32)>);

impl Pareto {
    fn single(a: u32, b: u32) -> Pareto {
        Pareto(vec![(a, b)])
    }

    fn insert(&mut self, a: u32, b: u32) -> bool {
        if b > MAX_LINES || self.0.iter().any(|&(a2, b2)| a2 <= a && b2 <= b) {
            return false;
        }
        self.0.retain(|&(a2, b2)| !(a <= a2 && b <= b2));
        self.0.push((a, b));
        true
    }

    fn union_with(&mut self, o: &Pareto) -> bool {
        let mut changed = false;
        for &(a, b) in &o.0 {
            changed |= self.insert(a, b);
        }
        changed
    }

    fn plus(&self, o: &Pareto) -> Pareto {
        let mut out = Pareto::default();
        for &(a, b) in &self.0 {
            for &(a2, b2) in &o.0 {
                out.insert(a.saturating_add(a2), b + b2);
            }
        }
        out
    }

    /// The costs one block deeper `d` times: each line start costs `d` more.
    fn deeper(&self, d: u32) -> Pareto {
        Pareto(self.0.iter().map(|&(a, b)| (a.saturating_add(b * d), b)).collect())
    }

    fn eval(&self, c: u32) -> Option<u32> {
        self.0.iter().map(|&(a, b)| a.saturating_add(b.saturating_mul(c))).min()
    }
}

/// The four variants of a cost: normal, first-free, at the end, first-free at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Costs {
    normal: Pareto,
    first_free: Pareto,
    at_end: Pareto,
    first_free_at_end: Pareto,
}

impl Costs {
    fn all(p: Pareto) -> Costs {
        Costs { normal: p.clone(), first_free: p.clone(), at_end: p.clone(), first_free_at_end: p }
    }
    fn union_with(&mut self, o: &Costs) -> bool {
        let a = self.normal.union_with(&o.normal);
        let b = self.first_free.union_with(&o.first_free);
        let c = self.at_end.union_with(&o.at_end);
        let d = self.first_free_at_end.union_with(&o.first_free_at_end);
        a | b | c | d
    }
    fn deeper(&self, d: u32) -> Costs {
        Costs {
            normal: self.normal.deeper(d),
            first_free: self.first_free.deeper(d),
            at_end: self.at_end.deeper(d),
            first_free_at_end: self.first_free_at_end.deeper(d),
        }
    }
}

/// Where a plan stands: nothing written yet after whitespace (first-free), writing,
/// or in the free tail at the end of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Phase {
    FirstFree,
    Normal,
    Ended,
}

/// Completion costs of one language (see the module doc).
pub struct CompletionCosts {
    paths: LexemePaths,
    pub(crate) table: std::sync::Arc<LrTable>,
    pub(crate) prod_lhs: Vec<NonterminalId>,
    /// suffix[p][dot]: costs of `rhs[dot..]` and whether it is nullable.
    pub(crate) suffix: Vec<Vec<(Costs, bool)>>,
    /// Costs of the start symbol (the augmented item `S' -> · S`) and whether it is
    /// nullable.
    pub(crate) start: (Costs, bool),
    /// Per LR state: entered by reading INDENT (it opens a block on the stack).
    pub(crate) opens_block: Vec<bool>,
}

impl std::fmt::Debug for CompletionCosts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompletionCosts")
            .field("productions", &self.suffix.len())
            .finish_non_exhaustive()
    }
}

/// The layer's layout terminals that cost, if it lays lines out (all `None` for a
/// layer without a layout).
#[derive(Clone, Copy, Default)]
pub(crate) struct Layout {
    pub newline: Option<TerminalId>,
    pub indent: Option<TerminalId>,
    pub dedent: Option<TerminalId>,
}

impl Layout {
    /// The costing terminals of a layer's `layout` ([`crate::Layer::layout`]).
    pub(crate) fn of(layout: Option<LayoutTerminals>) -> Layout {
        layout.map_or(Layout::default(), |l| Layout {
            newline: Some(l.newline),
            indent: Some(l.indent),
            dedent: Some(l.dedent),
        })
    }
}

impl CompletionCosts {
    /// Computes the tables of a language's grammar, lexer and LR table (with Python's
    /// layout terminals when it has them); [`crate::Language`] builds them when it is
    /// compiled (Python: 23-35 ms, `completion_costs_build` example).
    pub(crate) fn new(
        g: &Grammar,
        dfa: &LexerDfa,
        table: &Arc<LrTable>,
        layout: Layout,
    ) -> CompletionCosts {
        let paths = LexemePaths::new(g, dfa);
        let term_costs: Vec<Costs> = (0..g.num_terminals())
            .map(TerminalId::from_index)
            .map(|t| {
                if Some(t) == layout.newline {
                    let line = Pareto::single(1, 1);
                    let free = Pareto::single(0, 0);
                    Costs {
                        normal: line.clone(),
                        first_free: line,
                        at_end: free.clone(),
                        first_free_at_end: free,
                    }
                } else if Some(t) == layout.indent {
                    Costs::all(Pareto::single(1, 0))
                } else if Some(t) == layout.dedent {
                    Costs::all(Pareto::single(0, 0))
                } else if let Some(x) = paths.text(t).filter(|_| !g.terminals[t.index()].ignored) {
                    let n = x.len() as u32;
                    let spaced = Pareto::single(n + paths.needs_space_before(t) as u32, 0);
                    let bare = Pareto::single(n, 0);
                    Costs {
                        normal: spaced.clone(),
                        first_free: bare.clone(),
                        at_end: spaced,
                        first_free_at_end: bare,
                    }
                } else {
                    Costs::default()
                }
            })
            .collect();
        let nullable = g.nullable();
        let mut nts: Vec<Costs> = vec![Costs::default(); g.nonterminals.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for p in &g.productions {
                let (c, _) = suffix_costs(&p.rhs, &term_costs, &nts, &nullable, layout);
                changed |= nts[p.lhs.index()].union_with(&c);
            }
        }
        let suffix = g
            .productions
            .iter()
            .map(|p| {
                (0..=p.rhs.len())
                    .map(|d| suffix_costs(&p.rhs[d..], &term_costs, &nts, &nullable, layout))
                    .collect()
            })
            .collect();
        let table = table.clone();
        let opens_block = table
            .states()
            .map(|s| {
                layout.indent.is_some() && table.accessing_symbol(s) == layout.indent.map(Symbol::T)
            })
            .collect();
        CompletionCosts {
            paths,
            start: (nts[g.start.index()].clone(), nullable[g.start.index()]),
            prod_lhs: g.productions.iter().map(|p| p.lhs).collect(),
            suffix,
            table,
            opens_block,
        }
    }

    /// The lexeme paths and canonical texts the costs are built on.
    pub fn lexeme_paths(&self) -> &LexemePaths {
        &self.paths
    }

    /// The least cost (bytes, under the module's cost model) of a plan that takes the
    /// LR `stack` (state ids, bottom first) to the end of a complete program. `cols`
    /// are the columns of the open indentation levels (`&[0]` without a layout);
    /// `first_free`: the text so far ends in whitespace (or is empty), so the plan's
    /// first lexeme needs no space before it. `None`: no plan exists (e.g. the stack
    /// is not one the table can reach).
    pub fn stack_cost(&self, stack: &[LrState], cols: &[u32], first_free: bool) -> Option<u32> {
        let l = stack.len();
        if l == 0 || cols.is_empty() {
            return None;
        }
        // blocks[j]: blocks opened by stack[1..j].
        let mut blocks = vec![0u32; l + 1];
        for i in 1..l {
            blocks[i + 1] = blocks[i] + self.opens_block[stack[i].index()] as u32;
        }
        const GOAL: u32 = u32::MAX;
        let mut best: HashMap<(u32, LrState, Phase), u32> = HashMap::new();
        let mut heap = BinaryHeap::new();
        let phase0 = if first_free { Phase::FirstFree } else { Phase::Normal };
        let start = ((l - 1) as u32, stack[l - 1], phase0);
        best.insert(start, 0);
        heap.push(Reverse((0u32, start.0, start.1, start.2)));
        while let Some(Reverse((cost, j, g, phase))) = heap.pop() {
            if j == GOAL {
                return Some(cost);
            }
            if best.get(&(j, g, phase)).is_some_and(|&b| b < cost) {
                continue;
            }
            let level = blocks[j as usize] + self.opens_block[g.index()] as u32;
            let c = cols[(level as usize).min(cols.len() - 1)];
            let mut relax = |cost2: u32, key: (u32, LrState, Phase)| {
                if best.get(&key).is_none_or(|&b| cost2 < b) {
                    best.insert(key, cost2);
                    heap.push(Reverse((cost2, key.0, key.1, key.2)));
                }
            };
            for &(p, dot) in self.table.kernel(g) {
                if p == AUGMENTED {
                    if dot == 1 {
                        relax(cost, (GOAL, LrState::START, Phase::Ended));
                    } else if j == 0 {
                        for (c2, ph) in transitions(&self.start.0, self.start.1, phase, c) {
                            relax(cost.saturating_add(c2), (GOAL, LrState::START, ph));
                        }
                    }
                    continue;
                }
                if dot > j {
                    continue;
                }
                let lhs = self.prod_lhs[p.index()];
                let Some(g2) = self.table.goto(stack[(j - dot) as usize], lhs) else { continue };
                let (costs, null) = &self.suffix[p.index()][dot as usize];
                let key_j = j + 1 - dot;
                for (c2, ph) in transitions(costs, *null, phase, c) {
                    relax(cost.saturating_add(c2), (key_j, g2, ph));
                }
            }
        }
        None
    }
}

/// The moves a suffix with `costs` allows from `phase` at block column `c`: (added
/// cost, phase after).
pub(crate) fn transitions(
    costs: &Costs,
    nullable: bool,
    phase: Phase,
    c: u32,
) -> impl Iterator<Item = (u32, Phase)> {
    let mut out: [Option<(u32, Phase)>; 3] = [None; 3];
    match phase {
        Phase::FirstFree => {
            if nullable {
                out[0] = Some((0, Phase::FirstFree));
            }
            out[1] = costs.first_free.eval(c).map(|x| (x, Phase::Normal));
            out[2] = costs.first_free_at_end.eval(c).map(|x| (x, Phase::Ended));
        }
        Phase::Normal => {
            out[0] = costs.normal.eval(c).map(|x| (x, Phase::Normal));
            out[1] = costs.at_end.eval(c).map(|x| (x, Phase::Ended));
        }
        Phase::Ended => {
            out[0] = (costs.at_end.eval(c) == Some(0)).then_some((0, Phase::Ended));
        }
    }
    out.into_iter().flatten()
}

/// The costs of a symbol sequence (a production's rest), and whether it is nullable.
/// Symbols after an INDENT sit one block deeper (until its DEDENT).
fn suffix_costs(
    rhs: &[Symbol],
    terms: &[Costs],
    nts: &[Costs],
    nullable: &[bool],
    layout: Layout,
) -> (Costs, bool) {
    let mut depth = Vec::with_capacity(rhs.len());
    let mut d: i32 = 0;
    for s in rhs {
        depth.push(d.max(0) as u32);
        match *s {
            Symbol::T(t) if Some(t) == layout.indent => d += 1,
            Symbol::T(t) if Some(t) == layout.dedent => d -= 1,
            _ => {}
        }
    }
    let zero = Pareto::single(0, 0);
    let mut rest = Costs::all(zero);
    let mut rest_null = true;
    for (i, s) in rhs.iter().enumerate().rev() {
        let (sym, sym_null) = match *s {
            Symbol::T(t) => (&terms[t.index()], false),
            Symbol::N(n) => (&nts[n.index()], nullable[n.index()]),
        };
        let sym = if depth[i] > 0 { sym.deeper(depth[i]) } else { sym.clone() };
        let mut at_end = sym.normal.plus(&rest.at_end);
        if rest_null {
            at_end.union_with(&sym.at_end);
        }
        let mut first_free = sym.first_free.plus(&rest.normal);
        let mut first_free_at_end = sym.first_free.plus(&rest.at_end);
        if rest_null {
            first_free_at_end.union_with(&sym.first_free_at_end);
        }
        if sym_null {
            first_free.union_with(&rest.first_free);
            first_free_at_end.union_with(&rest.first_free_at_end);
        }
        rest =
            Costs { normal: sym.normal.plus(&rest.normal), first_free, at_end, first_free_at_end };
        rest_null &= sym_null;
    }
    (rest, rest_null)
}

#[cfg(test)]
mod tests {
    use crate::language::{Language, LanguageOptions};
    use crate::lexer_dfa::LexerDfa;
    use crate::token_parser::TokenParser;

    fn toy() -> std::sync::Arc<Language> {
        Language::compile(
            "start: stmt*\nstmt: NAME \"=\" expr \";\" | \"return\" expr \";\"\nexpr: atom | expr \"+\" atom\natom: NAME | INT | \"(\" expr \")\"\nNAME: /[a-z]+/\nINT: /[0-9]+/\n%ignore \" \"\n",
            &LanguageOptions::default(),
        )
        .unwrap()
    }

    /// The stack cost after `text` (its last lexeme ended), first-free or not.
    fn cost(
        lang: &std::sync::Arc<Language>,
        text: &str,
        first_free: bool,
        cols: &[u32],
    ) -> Option<u32> {
        let mut r = lang.recognizer();
        r.push_bytes(text.as_bytes()).unwrap();
        assert!(r.end_lexeme());
        let stacks = r.parser().lr_stacks().unwrap().to_vec();
        stacks.iter().filter_map(|s| lang.completion_costs().stack_cost(s, cols, first_free)).min()
    }

    #[test]
    fn toy_costs_count_canonical_texts_and_spaces() {
        let l = toy();
        // `a)` then `;`; a NAME after a lexeme is charged a space unless first-free.
        assert_eq!(cost(&l, "x = (1 +", true, &[0]), Some(3));
        assert_eq!(cost(&l, "x = (1 +", false, &[0]), Some(4));
        assert_eq!(cost(&l, "x = (1", false, &[0]), Some(2));
        assert_eq!(cost(&l, "x = 1;", false, &[0]), Some(0));
        assert_eq!(cost(&l, "return", false, &[0]), Some(3)); // ` a;`
        assert_eq!(cost(&l, "", true, &[0]), Some(0));
    }

    #[test]
    fn python_costs_charge_newlines_blocks_and_the_free_tail() {
        let py = crate::python::python().unwrap();
        // `)`, then the final NEWLINE is free.
        assert_eq!(cost(&py, "f(x", false, &[0]), Some(1));
        // `:` then `a` (charged a space) on the same line.
        assert_eq!(cost(&py, "if x", false, &[0]), Some(3));
        // `finally:0`/`except:a` at column 4 on a new line: newline + 4 columns + 7 bytes
        // + a spaced operand; the block's own NEWLINE costs 1 + 4 first.
        let c = cost(&py, "def f():\n    try:\n        x = 1", false, &[0, 4, 8]).unwrap();
        assert!((12..=20).contains(&c), "{c}");
    }

    #[test]
    fn python_spaces_end_every_complete_lexeme() {
        // The cost model separates glued lexemes with a space; that needs a space to end
        // every complete (not skipped) lexeme.
        let py = crate::python::python().unwrap();
        let dfa = &py.dfa;
        for q in dfa.states().skip(1) {
            if dfa.winners(q).iter().any(|&w| !py.ignored.contains(w)) {
                assert_eq!(dfa.next(q, b' '), LexerDfa::DEAD, "state {q} ({:?})", dfa.winners(q));
            }
        }
    }
}
