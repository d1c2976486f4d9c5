//! The names layer's scopes: a stack of frames (the module, then each `def` and
//! `class` whose body the text is in), each with the names bound in it so far, kept
//! behind an `Arc` (the mask copies the layer hundreds of times per step; the frames
//! change only where a token defines a function or class or leaves a body). Bindings
//! made since the last copy go to a small overlay instead (see [`Frames::bind`]).
//!
//! The frames also keep the reads that make a later assignment an UnboundLocalError
//! (pyflakes' `referenced before assignment`): a function that read a name bound
//! outside it "claims" the name; assigning it in that function afterwards is refused
//! ([`Frames::assignment_unbinds`]). The claims follow pyflakes: a later read of the
//! name from a class body or a comprehension (scopes pyflakes reads at once) takes
//! the claim away; reads in nested functions and lambdas (which pyflakes reads after
//! the function) leave it.

use std::collections::BTreeSet;
use std::sync::Arc;

/// What a frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameKind {
    Module,
    Function,
    /// Visible only from its own body (not from methods).
    Class,
}

#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub(crate) kind: FrameKind,
    /// The indentation of the `def` / `class` line (the body is deeper).
    pub(crate) indent: u32,
    pub(crate) names: BTreeSet<String>,
    /// A star import ran in it (module only): every name may be bound.
    pub(crate) star: bool,
}

/// The frames and the overlay of recent bindings.
#[derive(Debug)]
pub(crate) struct Frames {
    stack: Arc<Vec<Frame>>,
    /// (frame index, name) bound since the stack was last written.
    overlay: Vec<(usize, String)>,
    /// (function frame index, name): the function read the name, bound outside it,
    /// before binding it itself.
    claims: Vec<(usize, String)>,
    builtins: Arc<BTreeSet<String>>,
}

impl Clone for Frames {
    fn clone(&self) -> Self {
        Self {
            stack: self.stack.clone(),
            overlay: self.overlay.clone(),
            claims: self.claims.clone(),
            builtins: self.builtins.clone(),
        }
    }

    /// Reuses the allocations, and leaves a shared part alone where it is the
    /// source's already (the mask's copies mostly copy the same frames: no reference
    /// count written).
    fn clone_from(&mut self, source: &Self) {
        if !Arc::ptr_eq(&self.stack, &source.stack) {
            self.stack.clone_from(&source.stack);
        }
        if !Arc::ptr_eq(&self.builtins, &source.builtins) {
            self.builtins.clone_from(&source.builtins);
        }
        self.overlay.clone_from(&source.overlay);
        self.claims.clone_from(&source.claims);
    }
}

/// Where a read stands, for the claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadSite {
    /// In the innermost frame's own code.
    Plain,
    /// In a comprehension (pyflakes' generator scope, read at once).
    Comprehension,
    /// In a lambda's body (a function pyflakes reads later).
    Lambda,
}

impl Frames {
    pub(crate) fn new(builtins: Arc<BTreeSet<String>>) -> Self {
        let module =
            Frame { kind: FrameKind::Module, indent: 0, names: BTreeSet::new(), star: false };
        Self { stack: Arc::new(vec![module]), overlay: Vec::new(), claims: Vec::new(), builtins }
    }

    /// Moves the overlay into the frames (at a commit: the next copies share them).
    pub(crate) fn settle(&mut self) {
        if self.overlay.is_empty() {
            return;
        }
        let stack = Arc::make_mut(&mut self.stack);
        for (i, name) in self.overlay.drain(..) {
            if let Some(f) = stack.get_mut(i) {
                f.names.insert(name);
            }
        }
    }

    fn top(&self) -> usize {
        self.stack.len() - 1
    }

    /// Whether the innermost frame is a function (or inside one).
    pub(crate) fn in_function(&self) -> bool {
        self.stack.iter().any(|f| f.kind == FrameKind::Function)
    }

    /// Binds `name` in the innermost frame (`module`: in the module too).
    pub(crate) fn bind(&mut self, name: &str, module: bool) {
        self.overlay.push((self.top(), name.to_string()));
        if module {
            self.overlay.push((0, name.to_string()));
        }
    }

    pub(crate) fn star_import(&mut self) {
        Arc::make_mut(&mut self.stack)[0].star = true;
    }

    /// Opens a frame for a `def` or `class` written at `indent`.
    pub(crate) fn open(&mut self, kind: FrameKind, indent: u32) {
        self.settle();
        let f = Frame { kind, indent, names: BTreeSet::new(), star: false };
        Arc::make_mut(&mut self.stack).push(f);
    }

    /// A logical line at `indent` starts: the bodies it is not in end.
    pub(crate) fn line_at(&mut self, indent: u32) {
        let keep = self.stack.iter().skip(1).take_while(|f| f.indent < indent).count() + 1;
        if keep < self.stack.len() {
            self.settle();
            Arc::make_mut(&mut self.stack).truncate(keep);
            self.claims.retain(|(i, _)| *i < keep);
        }
    }

    /// Whether the innermost frame binds `name` itself.
    fn binds_here(&self, name: &str) -> bool {
        let top = self.top();
        self.stack[top].names.contains(name)
            || self.overlay.iter().any(|(j, n)| *j == top && n == name)
    }

    /// Whether `name` resolves in a frame around the innermost one, or is a builtin.
    fn bound_outside(&self, name: &str) -> bool {
        let top = self.top();
        self.builtins.contains(name)
            || self.visible().any(|(i, f)| {
                i != top
                    && (f.names.contains(name)
                        || self.overlay.iter().any(|(j, n)| *j == i && n == name))
            })
    }

    /// A read of `name`, which resolved, at `site`: updates the claims.
    pub(crate) fn note_read(&mut self, name: &str, site: ReadSite) {
        let top = self.top();
        let kind = self.stack[top].kind;
        match site {
            ReadSite::Lambda => {}
            ReadSite::Comprehension => self.claims.retain(|(_, n)| n != name),
            ReadSite::Plain if kind == FrameKind::Class => self.claims.retain(|(_, n)| n != name),
            ReadSite::Plain => {
                if kind == FrameKind::Function
                    && !self.binds_here(name)
                    && self.bound_outside(name)
                    && !self.claims.iter().any(|(i, n)| *i == top && n == name)
                {
                    self.claims.push((top, name.to_string()));
                }
            }
        }
    }

    /// Whether assigning `name` here is an UnboundLocalError: the innermost frame is a
    /// function that read the name from outside and does not bind it yet.
    pub(crate) fn assignment_unbinds(&self, name: &str) -> bool {
        let top = self.top();
        self.stack[top].kind == FrameKind::Function
            && !self.binds_here(name)
            && self.claims.iter().any(|(i, n)| *i == top && n == name)
    }

    /// Whether assigning `name` here may be an UnboundLocalError, whatever this
    /// function reads before: the innermost frame is a function that does not bind
    /// the name yet.
    pub(crate) fn assignment_may_unbind(&self, name: &str) -> bool {
        self.stack[self.top()].kind == FrameKind::Function && !self.binds_here(name)
    }

    /// The frames a read sees: the module, functions, and the innermost frame.
    fn visible(&self) -> impl Iterator<Item = (usize, &Frame)> {
        let top = self.top();
        self.stack.iter().enumerate().filter(move |(i, f)| f.kind != FrameKind::Class || *i == top)
    }

    /// Whether `name` is bound where the text is (or a star import may bind it).
    pub(crate) fn resolves(&self, name: &str) -> bool {
        self.builtins.contains(name)
            || self.visible().any(|(i, f)| {
                f.star
                    || f.names.contains(name)
                    || self.overlay.iter().any(|(j, n)| *j == i && n == name)
            })
    }

    /// Whether some name bound where the text is starts with the bytes `prefix` (which
    /// may end inside a UTF-8 character: then only a name with those bytes goes on).
    pub(crate) fn resolves_prefix(&self, prefix: &[u8]) -> bool {
        set_starts(&self.builtins, prefix)
            || self.visible().any(|(i, f)| {
                f.star
                    || set_starts(&f.names, prefix)
                    || self.overlay.iter().any(|(j, n)| *j == i && n.as_bytes().starts_with(prefix))
            })
    }

    /// Whether `other` (a copy of these frames that read more bytes) sees the same
    /// names: it shares the stack and bound nothing more. (A copy that wrote the
    /// stack holds a new allocation: the original keeps its own alive.)
    pub(crate) fn same_names(&self, other: &Frames) -> bool {
        Arc::ptr_eq(&self.stack, &other.stack)
            && self.overlay.len() == other.overlay.len()
            && Arc::ptr_eq(&self.builtins, &other.builtins)
    }

    /// Every name a read resolves besides the builtins (frames visible from the
    /// innermost one, with their recent bindings); `None` under a star import (every
    /// name may be bound).
    pub(crate) fn visible_names(&self) -> Option<impl Iterator<Item = &str>> {
        if self.visible().any(|(_, f)| f.star) {
            return None;
        }
        let visible: Vec<usize> = self.visible().map(|(i, _)| i).collect();
        let overlay =
            self.overlay.iter().filter(move |(j, _)| visible.contains(j)).map(|(_, n)| n.as_str());
        Some(self.visible().flat_map(|(_, f)| f.names.iter().map(String::as_str)).chain(overlay))
    }

    /// CPython's builtins (every read resolves them).
    pub(crate) fn builtin_names(&self) -> impl Iterator<Item = &str> {
        self.builtins.iter().map(String::as_str)
    }

    /// The names a read sees, for the inspector: the frames' names, innermost first
    /// (without the builtins).
    pub(crate) fn in_scope(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let frames: Vec<(usize, &Frame)> = self.visible().collect();
        for (i, f) in frames.into_iter().rev() {
            let mut names: Vec<String> = f.names.iter().cloned().collect();
            names.extend(self.overlay.iter().filter(|(j, _)| *j == i).map(|(_, n)| n.clone()));
            names.sort();
            out.extend(names);
        }
        let mut seen = BTreeSet::new();
        out.retain(|n| seen.insert(n.clone()));
        out
    }
}

/// Whether a name of `set` starts with `prefix` (not always whole UTF-8). The names
/// starting with it start with its longest UTF-8 prefix `whole` and sort together from
/// `whole` on (strings sort by their bytes): the scan stops at the first name not
/// starting with `whole` (at once when `prefix` is whole).
pub(crate) fn set_starts(set: &BTreeSet<String>, prefix: &[u8]) -> bool {
    let whole = match std::str::from_utf8(prefix) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&prefix[..e.valid_up_to()]).unwrap_or(""),
    };
    set.range::<str, _>((std::ops::Bound::Included(whole), std::ops::Bound::Unbounded))
        .take_while(|n| n.starts_with(whole))
        .any(|n| n.as_bytes().starts_with(prefix))
}
