//! What the text owes the layer: names held open that no scope binds yet, and the
//! texts that settle them, for a decoder that must finish the program (the wrap-up of
//! mode `names`: the grammar's shortest way out may be refused while a name is owed,
//! e.g. `]` after `[x + i for i in r` while nothing binds `x`).
//!
//! A name is owed when it is read or may be read and resolves nowhere:
//! - a read waiting in a bracket's first element for a comprehension's `for`
//!   (`[x * 2` until `for x in`), settled by ` for x in ()`;
//! - a statement's possible target (`a, b` or `a = b` at depth 0, a name waiting for
//!   its role), settled by ` = 0` (it becomes an assignment target, or a keyword
//!   argument in a call) or by ` := 0` (a walrus target: `if x := 0:`);
//! - the identifier being typed where it would be such a name, or a read typed as a
//!   proper prefix of bound names only (`return numbe`), settled by the rest of the
//!   shortest bound name it starts.
//!
//! Each settlement is only offered: the caller checks that the grammar and the layer
//! take it where the text is and that it lowers [`Machine::owed`] (the settlements
//! are menus, not plans: ` for x in ()` is a SyntaxError after `x if y`).

use super::super::frames::Frames;
use super::super::lexer::Lexer;
use super::{Bracket, Ctx, Machine, EXEMPT, KEYWORDS};

impl Bracket {
    /// The names read in the bracket's first element that nothing binds yet (not
    /// its comprehension's targets, not a scope's names).
    fn owed<'a>(&'a self, frames: &'a Frames) -> impl Iterator<Item = &'a str> + 'a {
        self.pending
            .iter()
            .map(|p| p.name.as_str())
            .filter(move |n| !(self.comp && self.comp_targets.iter().any(|t| t == n)))
            .filter(move |n| open(n, frames))
    }
}

/// Whether a read of `name` would need a binding the text does not hold.
fn open(name: &str, frames: &Frames) -> bool {
    !EXEMPT.contains(&name) && !KEYWORDS.contains(&name) && !frames.resolves(name)
}

impl Machine {
    /// How many names the text owes (see the module doc): 0 when nothing held open
    /// needs a binding.
    pub(crate) fn owed(&self, lexer: &Lexer, frames: &Frames) -> usize {
        let in_brackets: usize = self.brackets.iter().map(|b| b.owed(frames).count()).sum();
        let segment = self.segment.iter().filter(|p| open(&p.name, frames)).count();
        in_brackets + segment + self.waiting(lexer, frames).len()
    }

    /// The names whose role the next token decides and that resolve nowhere: the
    /// awaiting name, and the identifier being typed where it is (or may be) read.
    fn waiting(&self, lexer: &Lexer, frames: &Frames) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(a) = self.awaiting.as_ref().filter(|a| open(&a.name, frames)) {
            out.push(a.name.clone());
        }
        if lexer.in_ident() && matches!(self.ctx, Ctx::Read | Ctx::Ambiguous | Ctx::Target) {
            let typed = String::from_utf8_lossy(lexer.ident()).into_owned();
            let comp_target = self.local_names().any(|t| t == typed);
            if open(&typed, frames) && !comp_target && !out.contains(&typed) {
                out.push(typed);
            }
        }
        out
    }

    /// Texts that may settle what the text owes, most specific first (see the module
    /// doc); empty when nothing is owed.
    pub(crate) fn settlements(&self, lexer: &Lexer, frames: &Frames) -> Vec<Vec<u8>> {
        if self.owed(lexer, frames) == 0 {
            return Vec::new();
        }
        let mut out = Vec::new();
        if lexer.in_ident() && matches!(self.ctx, Ctx::Read | Ctx::Ambiguous | Ctx::Target) {
            if let Some(rest) = self.shortest_completion(lexer, frames) {
                out.push(rest);
            }
        }
        let mut names: Vec<String> = Vec::new();
        let owed_here = self.brackets.last().into_iter().flat_map(|b| b.owed(frames));
        for n in owed_here.map(String::from).chain(self.waiting(lexer, frames)) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        if !names.is_empty() && !self.brackets.is_empty() {
            out.push(format!(" for {} in ()", names.join(", ")).into_bytes());
        }
        out.push(b" = 0".to_vec());
        out.push(b" := 0".to_vec());
        out
    }

    /// The rest of the shortest name bound here (a comprehension's target included)
    /// that the identifier being typed starts, unless it is bound itself (the typed
    /// bytes may end inside a UTF-8 character: the rest then starts inside one too).
    fn shortest_completion(&self, lexer: &Lexer, frames: &Frames) -> Option<Vec<u8>> {
        let typed = lexer.ident();
        if std::str::from_utf8(typed).is_ok_and(|t| !open(t, frames)) {
            return None;
        }
        let scopes = frames.visible_names()?;
        let builtins = frames.builtin_names();
        scopes
            .chain(builtins)
            .chain(self.local_names())
            .filter(|n| n.len() > typed.len() && n.as_bytes().starts_with(typed))
            .min_by_key(|n| (n.len(), *n))
            .map(|n| n.as_bytes()[typed.len()..].to_vec())
    }
}
