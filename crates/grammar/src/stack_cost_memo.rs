//! [`StackCostMemo`]: [`CompletionCosts::stack_cost`] memoised per stack *prefix*, so
//! the many stacks a finishing mask asks about (one per allowed token's state, and per
//! terminal a new line could start with) share the work on their common bottom.
//!
//! `stack_cost` is a Dijkstra search over configurations `(j, g, phase)`: the virtual
//! stack `stack[..j] ++ [g]`. Every move from `(j, g)` reads only `g`, `stack[..j]` and
//! the block column of its level, and leads to `(j, g')` (a dot-1 item: same prefix) or
//! to `(j', g')` with `j' < j`. So the least cost from `(j, g, phase)` to the goal is a
//! function of (the prefix `stack[..j]` with its columns, `g`, `phase`) alone: it is
//! kept here under an interned id of the prefix, and computed by a small search over
//! the same-prefix configurations whose exits to shorter prefixes read (or compute,
//! recursively) the memo. The result equals `stack_cost`'s exactly (same graph, same
//! edge costs; `tests` check it on real stacks).
//!
//! Measured (issue 13): the first finishing mask after `else:` of HumanEval/144 asked
//! 2,201 stack costs (mean depth 56), 32.6 ms of its 45 ms; most of those stacks share
//! all but their top few states.
//!
//! The memo is a cache of a function of the grammar: it may be shared by every
//! constraint of one language (the decoder's kit holds one) and is cleared when it
//! grows past [`StackCostMemo::MAX`] entries.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use crate::completion_cost::{transitions, CompletionCosts, Phase};
use crate::ids::LrState;
use crate::lr_table::AUGMENTED;

/// An interned stack prefix `stack[..depth]`.
#[derive(Clone, Copy, Debug)]
struct Prefix {
    /// The prefix one shorter (`NONE` for the empty prefix).
    parent: u32,
    /// `stack[depth - 1]` (`NO_STATE` for the empty prefix).
    state: LrState,
    depth: u32,
    /// The block column of the prefix's level (`cols[blocks]`, clamped as
    /// `stack_cost` does).
    col: u32,
}

const NONE: u32 = u32::MAX;

/// The state of the empty prefix (which has none).
const NO_STATE: LrState = LrState::new(u32::MAX);

/// Stack costs memoised per prefix (see the module doc).
#[derive(Debug, Default)]
pub struct StackCostMemo {
    /// (parent, state, column) -> prefix id.
    ids: FxHashMap<(u32, LrState, u32), u32>,
    prefixes: Vec<Prefix>,
    /// Configuration -> least cost to the goal.
    costs: FxHashMap<Config, Option<u32>>,
    /// The last stack's prefixes: (state, column, id) for depths 1.. (consecutive
    /// calls share most of them: one lookup each saved).
    path: Vec<(LrState, u32, u32)>,
    /// The last stack's empty prefix: (column, id).
    root: Option<(u32, u32)>,
}

/// A configuration of the search (see the module doc): the virtual stack of an
/// interned prefix and a top `state`, in `phase`; the memo's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Config {
    prefix: u32,
    state: LrState,
    phase: Phase,
}

/// What the local search pops: a configuration on the same prefix, an exit to a
/// shorter prefix not yet costed, or the goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Goal,
    Exit(Config),
    Here { state: LrState, phase: Phase },
}

impl StackCostMemo {
    /// Entries (prefixes and costs) kept at most before the memo is cleared (a few MB).
    pub const MAX: usize = 400_000;

    /// Deeper stacks take the unmemoised search (the memo's search recurses once per
    /// prefix it exits to).
    const MAX_DEPTH: usize = 2_000;

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
    pub fn stack_cost(
        &mut self,
        costs: &CompletionCosts,
        stack: &[LrState],
        cols: &[u32],
        first_free: bool,
    ) -> Option<u32> {
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
                let id = self.intern(NONE, NO_STATE, 0, col0);
                self.root = Some((col0, id));
                id
            }
        };
        let mut blocks = 0u32;
        for j in 1..l {
            if j >= 2 {
                blocks += costs.opens_block[stack[j - 1].index()] as u32;
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
        if !costs.opens_block[top.index()] {
            return self.cost(costs, Config { prefix, state: top, phase });
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
                Step::Here { state, phase } => self.cost(costs, Config { prefix, state, phase }),
                Step::Exit(at) => self.cost(costs, at),
            };
            if let Some(r) = rest {
                let total = cost.saturating_add(r);
                best = Some(best.map_or(total, |b| b.min(total)));
            }
        }
        best
    }

    fn intern(&mut self, parent: u32, state: LrState, depth: u32, col: u32) -> u32 {
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

    /// The least cost from configuration `at` to the goal, memoised. Its state must
    /// not open a block (see [`Self::stack_cost`]).
    fn cost(&mut self, costs: &CompletionCosts, at: Config) -> Option<u32> {
        if let Some(&c) = self.costs.get(&at) {
            return c;
        }
        let c = self.search(costs, at);
        self.costs.insert(at, c);
        c
    }

    /// Dijkstra over the configurations of one prefix; an exit is costed (from the
    /// memo, or recursively) only when it is the cheapest thing left, which is exact
    /// because every cost is at least zero.
    fn search(&mut self, costs: &CompletionCosts, at: Config) -> Option<u32> {
        let Config { prefix, state, phase } = at;
        let col = self.prefixes[prefix as usize].col;
        // The configurations of one prefix are few: a list beats a map.
        let mut best: Vec<(LrState, Phase, u32)> = vec![(state, phase, 0)];
        let mut heap = BinaryHeap::new();
        let mut moves = Vec::new();
        heap.push(Reverse((0u32, Step::Here { state, phase })));
        while let Some(Reverse((cost, step))) = heap.pop() {
            match step {
                Step::Goal => return Some(cost),
                Step::Exit(exit) => {
                    if let Some(rest) = self.cost(costs, exit) {
                        heap.push(Reverse((cost.saturating_add(rest), Step::Goal)));
                    }
                }
                Step::Here { state: g, phase: ph } => {
                    if best.iter().any(|&(s, p, b)| s == g && p == ph && b < cost) {
                        continue;
                    }
                    moves.clear();
                    self.moves(costs, prefix, g, ph, col, &mut moves);
                    for &(c2, next) in &moves {
                        let cost2 = cost.saturating_add(c2);
                        if let Step::Here { state, phase } = next {
                            match best.iter_mut().find(|(s, p, _)| *s == state && *p == phase) {
                                Some((_, _, b)) if *b <= cost2 => continue,
                                Some((_, _, b)) => *b = cost2,
                                None => best.push((state, phase, cost2)),
                            }
                        }
                        heap.push(Reverse((cost2, next)));
                    }
                }
            }
        }
        None
    }

    /// The moves of `stack_cost`'s search from configuration (`prefix`, `g`, `phase`)
    /// at block column `c`: (added cost, where to), appended to `out`.
    fn moves(
        &self,
        costs: &CompletionCosts,
        prefix: u32,
        g: LrState,
        phase: Phase,
        c: u32,
        out: &mut Vec<(u32, Step)>,
    ) {
        let j = self.prefixes[prefix as usize].depth;
        for &(p, dot) in costs.table.kernel(g) {
            if p == AUGMENTED {
                if dot == 1 {
                    out.push((0, Step::Goal));
                } else if j == 0 {
                    out.extend(
                        transitions(&costs.start.0, costs.start.1, phase, c)
                            .map(|(c2, _)| (c2, Step::Goal)),
                    );
                }
                continue;
            }
            if dot > j {
                continue;
            }
            // stack[j - dot] is the top of the prefix of depth j + 1 - dot.
            let at = self.ancestor(prefix, j + 1 - dot);
            let lhs = costs.prod_lhs[p.index()];
            let Some(g2) = costs.table.goto(self.prefixes[at as usize].state, lhs) else {
                continue;
            };
            let (suffix, null) = &costs.suffix[p.index()][dot as usize];
            for (c2, ph) in transitions(suffix, *null, phase, c) {
                let step = if dot == 1 {
                    Step::Here { state: g2, phase: ph }
                } else {
                    Step::Exit(Config { prefix: at, state: g2, phase: ph })
                };
                out.push((c2, step));
            }
        }
    }
}
