//! [`StackCostMemo`]: [`CompletionCosts::stack_cost`] memoised per stack *prefix*, so
//! the many stacks a finishing mask asks about (one per allowed token's state, and per
//! terminal a new line could start with) share the work on their common bottom.
//!
//! `stack_cost` is a Dijkstra search over configurations `(j, g, phase)`: the virtual
//! stack `stack[..j] ++ [g]`. Every move from `(j, g)` reads only `g`, `stack[..j]` and
//! the block column of its level, and leads to `(j, g')` (a dot-1 item: same prefix) or
//! to `(j', g')` with `j' < j`. So the least cost from `(j, g, phase)` to the goal is a
//! function of (the prefix `stack[..j]` with its columns, `g`, `phase`) alone: it is
//! kept here under an interned id of the prefix, for every configuration met (see
//! `eval`), so the chain of unit reductions a new top starts with (NAME -> atom ->
//! ... -> expression statement) is costed once per prefix, not once per top. The result equals `stack_cost`'s exactly (same graph, same
//! edge costs; `tests` check it on real stacks).
//!
//! Measured (issue 13): the first finishing mask after `else:` of HumanEval/144 asked
//! 2,201 stack costs (mean depth 56), 32.6 ms of its 45 ms; most of those stacks share
//! all but their top few states.
//!
//! The memo is a cache of a function of the grammar: it may be shared by every
//! constraint of one language (the decoder's kit holds one) and is cleared when it
//! grows past [`StackCostMemo::MAX`] entries.

use rustc_hash::FxHashMap;

use crate::completion_cost::{transitions, CompletionCosts, Phase};
use crate::lr_table::AUGMENTED;

/// An interned stack prefix `stack[..depth]`.
#[derive(Clone, Copy, Debug)]
struct Prefix {
    /// The prefix one shorter (`NONE` for the empty prefix).
    parent: u32,
    /// `stack[depth - 1]` (unused for the empty prefix).
    state: u32,
    depth: u32,
    /// The block column of the prefix's level (`cols[blocks]`, clamped as
    /// `stack_cost` does).
    col: u32,
}

const NONE: u32 = u32::MAX;

/// Stack costs memoised per prefix (see the module doc).
#[derive(Debug, Default)]
pub struct StackCostMemo {
    /// (parent, state, column) -> prefix id.
    ids: FxHashMap<(u32, u32, u32), u32>,
    prefixes: Vec<Prefix>,
    /// (prefix, virtual top state, phase) -> least cost to the goal.
    costs: FxHashMap<(u32, u32, Phase), Option<u32>>,
    /// The last stack's prefixes: (state, column, id) for depths 1.. (consecutive
    /// calls share most of them: one lookup each saved).
    path: Vec<(u32, u32, u32)>,
    /// The last stack's empty prefix: (column, id).
    root: Option<(u32, u32)>,
}

/// Where a move leads: a configuration of the same prefix, one of a shorter prefix,
/// or the goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Goal,
    Exit { prefix: u32, state: u32, phase: Phase },
    Here { state: u32, phase: Phase },
}

impl StackCostMemo {
    /// Entries (prefixes and costs) kept at most before the memo is cleared (a few MB).
    pub const MAX: usize = 400_000;

    /// Deeper stacks take the unmemoised search (the memo's evaluation recurses over
    /// prefixes and the configurations of each).
    const MAX_DEPTH: usize = 400;

    /// An empty memo.
    pub fn new() -> Self {
        Self::default()
    }

    /// Entries held (prefixes and costs).
    pub fn len(&self) -> usize {
        self.prefixes.len() + self.costs.len()
    }

    /// Whether the memo holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// [`CompletionCosts::stack_cost`] of (`stack`, `cols`, `first_free`), from and into
    /// the memo. `costs` must be the same language's every time (the memo's keys are
    /// its LR states).
    pub fn stack_cost(&mut self, costs: &CompletionCosts, stack: &[u32], cols: &[u32], first_free: bool) -> Option<u32> {
        let l = stack.len();
        if l == 0 || cols.is_empty() {
            return None;
        }
        if l > Self::MAX_DEPTH {
            return costs.stack_cost(stack, cols, first_free);
        }
        if self.len() > Self::MAX {
            *self = Self::default();
        }
        let col_at = |level: u32| cols[(level as usize).min(cols.len() - 1)];
        // The prefixes stack[..j] for j = 0..l, as `stack_cost` counts blocks; the
        // last call's path is reused while it agrees.
        let col0 = col_at(0);
        let mut prefix = match self.root {
            Some((c, id)) if c == col0 => id,
            _ => {
                self.path.clear();
                let id = self.intern(NONE, NONE, 0, col0);
                self.root = Some((col0, id));
                id
            }
        };
        let mut blocks = 0u32;
        for j in 1..l {
            if j >= 2 {
                blocks += costs.opens_block[stack[j - 1] as usize] as u32;
            }
            let (state, col) = (stack[j - 1], col_at(blocks));
            match self.path.get(j - 1) {
                Some(&(s, c, id)) if s == state && c == col => prefix = id,
                _ => {
                    self.path.truncate(j - 1);
                    prefix = self.intern(prefix, state, j as u32, col);
                    self.path.push((state, col, prefix));
                }
            }
        }
        let top = stack[l - 1];
        let phase = if first_free { Phase::FirstFree } else { Phase::Normal };
        if !costs.opens_block[top as usize] {
            return self.cost(costs, prefix, top, phase);
        }
        // A top that opens a block sits one level deeper than its prefix: its own moves
        // use that level's column; no move returns to it (a goto's state is entered by
        // a nonterminal, never by INDENT).
        let c = col_at(blocks + 1);
        let mut best: Option<u32> = None;
        let mut moves = Vec::new();
        self.moves(costs, prefix, top, phase, c, &mut moves);
        for (cost, step) in moves {
            let rest = match step {
                Step::Goal => Some(0),
                Step::Here { state, phase } => self.cost(costs, prefix, state, phase),
                Step::Exit { prefix, state, phase } => self.cost(costs, prefix, state, phase),
            };
            if let Some(r) = rest {
                let total = cost.saturating_add(r);
                best = Some(best.map_or(total, |b| b.min(total)));
            }
        }
        best
    }

    fn intern(&mut self, parent: u32, state: u32, depth: u32, col: u32) -> u32 {
        let next = self.prefixes.len() as u32;
        let id = *self.ids.entry((parent, state, col)).or_insert(next);
        if id == next {
            self.prefixes.push(Prefix { parent, state, depth, col });
        }
        id
    }

    /// The ancestor of `prefix` at `depth` (at most its own depth).
    fn ancestor(&self, mut prefix: u32, depth: u32) -> u32 {
        while self.prefixes[prefix as usize].depth > depth {
            prefix = self.prefixes[prefix as usize].parent;
        }
        prefix
    }

    /// The least cost from configuration (`prefix`, `state`, `phase`) to the goal,
    /// memoised. `state` must not open a block (see [`Self::stack_cost`]).
    fn cost(&mut self, costs: &CompletionCosts, prefix: u32, state: u32, phase: Phase) -> Option<u32> {
        if let Some(&c) = self.costs.get(&(prefix, state, phase)) {
            return c;
        }
        self.eval(costs, (prefix, state, phase), &mut Vec::new()).0
    }

    /// The least cost from configuration `at` to the goal: the least over its moves of
    /// the move's cost plus the cost from where it leads, recursively over the
    /// configurations of the same prefix (`open`: those being evaluated, a cycle's
    /// edge back to one of them is left out) and through [`Self::cost`] for shorter
    /// prefixes (never a cycle: they only lead shorter). Returns the cost and the
    /// shallowest index in `open` of a configuration a left-out edge led to
    /// (`usize::MAX`: none). Leaving out an edge back to a configuration being
    /// evaluated loses nothing for that configuration (a path through it again is no
    /// shorter: costs are never negative), so a cost is exact, and memoised, when
    /// every left-out edge led back to itself or to configurations evaluated inside
    /// it; the others are recomputed when asked again.
    fn eval(&mut self, costs: &CompletionCosts, at: (u32, u32, Phase), open: &mut Vec<(u32, u32, Phase)>) -> (Option<u32>, usize) {
        if let Some(&c) = self.costs.get(&at) {
            return (c, usize::MAX);
        }
        if let Some(i) = open.iter().position(|&o| o == at) {
            return (None, i);
        }
        let (prefix, state, phase) = at;
        let depth = open.len();
        open.push(at);
        let mut moves = Vec::new();
        self.moves(costs, prefix, state, phase, self.prefixes[prefix as usize].col, &mut moves);
        let (mut best, mut low): (Option<u32>, usize) = (None, usize::MAX);
        for (c2, step) in moves {
            let rest = match step {
                Step::Goal => Some(0),
                Step::Exit { prefix, state, phase } => self.cost(costs, prefix, state, phase),
                Step::Here { state, phase } => {
                    let (rest, l) = self.eval(costs, (prefix, state, phase), open);
                    low = low.min(l);
                    rest
                }
            };
            if let Some(r) = rest {
                let total = c2.saturating_add(r);
                best = Some(best.map_or(total, |b| b.min(total)));
            }
        }
        open.pop();
        if low >= depth {
            self.costs.insert(at, best);
            low = usize::MAX;
        }
        (best, low)
    }

    /// The moves of `stack_cost`'s search from configuration (`prefix`, `g`, `phase`)
    /// at block column `c`: (added cost, where to), appended to `out`.
    fn moves(&self, costs: &CompletionCosts, prefix: u32, g: u32, phase: Phase, c: u32, out: &mut Vec<(u32, Step)>) {
        let j = self.prefixes[prefix as usize].depth;
        for &(p, dot) in costs.table.kernel(g) {
            if p == AUGMENTED {
                if dot == 1 {
                    out.push((0, Step::Goal));
                } else if j == 0 {
                    out.extend(transitions(&costs.start.0, costs.start.1, phase, c).map(|(c2, _)| (c2, Step::Goal)));
                }
                continue;
            }
            if dot > j {
                continue;
            }
            // stack[j - dot] is the top of the prefix of depth j + 1 - dot.
            let at = self.ancestor(prefix, j + 1 - dot);
            let lhs = costs.prod_lhs[p as usize];
            let Some(g2) = costs.table.goto(self.prefixes[at as usize].state, lhs) else { continue };
            let (suffix, null) = &costs.suffix[p as usize][dot as usize];
            for (c2, ph) in transitions(suffix, *null, phase, c) {
                let step = if dot == 1 { Step::Here { state: g2, phase: ph } } else { Step::Exit { prefix: at, state: g2, phase: ph } };
                out.push((c2, step));
            }
        }
    }
}
