//! The names layer's context machine: from the lexer's events, what each name is
//! where it stands (a read, a binding, an attribute, a keyword argument, a target
//! not decided yet) and whether a read resolves.
//!
//! A name's role is decided as early as the text decides it, never later:
//! - by the tokens before it: after `def`, `class`, `import`, `as`, `global`, `for`
//!   (until `in`), `lambda` and inside a `def`'s parameter list it is bound; after a
//!   dot it is an attribute (not checked); after `return`, an operator, `not`, `in`,
//!   ... it is read — and then checked as it is typed (only identifiers that start
//!   some bound name, a keyword or a string prefix go on);
//! - by the token after it where the tokens before leave it open: a name starting a
//!   statement, or after `=` or `,` there (`a, b = ...` binds, `a, b` reads), waits for
//!   the statement's `=` (bound) or end (read); a name first in a bracket or after a
//!   comma there may be a keyword argument (`=`) or a walrus target (`:=`);
//! - a read inside a bracket's first element may still be bound by a comprehension's
//!   `for` (`[x * 2 for x in xs]`): it waits for the bracket's first comma, its close,
//!   or its `for` (then the comprehension's targets bind it).
//!
//! Permissive (nothing refused): names in strings (f-string fields included), `match`
//! / `case` statements' names, soft keywords, names under a star import.
//!
//! Here the machine and its event handlers (`event`, `name`, `keyword`, `op`, the
//! brackets, `end_statement`: one state machine, each handler deciding roles the others
//! read; ~690 lines); its state's parts in `context.rs`, the fixed words in `words.rs`,
//! the identifier being typed and the mask's questions in `typing.rs`, the names it
//! waits to see bound in `obligations.rs`.

use super::frames::{FrameKind, Frames, ReadSite};
use super::lexer::{Event, Lexer, Op};

mod context;
mod obligations;
mod typing;
mod words;

use context::{Awaiting, Bracket, Ctx, Pending, Prev, Stmt};
pub(crate) use words::READ_KEYWORDS;
use words::{EXEMPT, KEYWORDS, SOFT_KEYWORDS};

clone_reusing!(Machine {
    stmt,
    prev,
    brackets,
    segment,
    awaiting,
    lambdas,
    lambda_body,
    lambda_params,
    walrus,
    aug_target,
    bind_target,
    for_target,
    assigning,
    ctx,
    ident_at,
    indent,
    opening,
    params,
    forward,
    lazy,
    ident_due,
});

/// Where refusals go: the first ends the text (a mask), or every one is kept (a
/// checker reading a whole file).
pub(crate) struct Sink<'a> {
    pub(crate) record: Option<&'a mut Vec<(String, usize)>>,
    pub(crate) refused: bool,
}

impl Sink<'_> {
    fn refuse(&mut self, name: &str, at: usize) {
        self.refused = true;
        if let Some(r) = self.record.as_deref_mut() {
            r.push((name.to_string(), at));
        }
    }
}

/// The machine's state (small: the mask clones the layer hundreds of times per step).
#[derive(Debug)]
pub(crate) struct Machine {
    stmt: Stmt,
    prev: Prev,
    brackets: Vec<Bracket>,
    /// The statement's possible targets at depth 0.
    segment: Vec<Pending>,
    awaiting: Option<Awaiting>,
    /// Depths of `lambda`s whose parameters are being read.
    lambdas: Vec<usize>,
    /// The depth of the outermost `lambda` whose body is being read (until a bracket
    /// around it closes or the statement ends).
    lambda_body: Option<usize>,
    /// The parameters of the lambdas being read, with their lambda's bracket depth:
    /// bound in the lambda's own scope only, from the parameter on (its own and later
    /// parameters' defaults, read outside in Python, see them: permissive) until the
    /// lambda's body ends (a comma or a comprehension's `for` at its depth, the close
    /// of a bracket around it, the statement's end).
    lambda_params: Vec<(usize, String)>,
    /// Walrus targets (name, bracket depth) whose value is being read: Python binds
    /// the name after its value (`i := i + 1` reads an unbound `i`), so it is bound at
    /// the next comma at that depth, the close of its bracket, or the statement's
    /// (or header's) end.
    walrus: Vec<(String, usize)>,
    /// The statement's first name, read before an operator that may be an augmented
    /// assignment (`x += 1` assigns `x` after reading it).
    aug_target: Option<Pending>,
    /// A `for` / `as` target name just read: an assignment unless a subscript or an
    /// attribute follows.
    bind_target: Option<Pending>,
    /// The depth of a `for` whose targets are being read.
    for_target: Option<usize>,
    /// Names the statement assigns (the targets before an `=`), bound when it ends:
    /// Python binds them after reading the right side (`n = n + 1` reads an unbound
    /// `n` unless something bound it before).
    assigning: Vec<String>,
    ctx: Ctx,
    ident_at: usize,
    indent: u32,
    /// A `def` or `class` header is being read: its frame opens at its `:`, with the
    /// parameters read so far.
    opening: Option<FrameKind>,
    params: Vec<String>,
    /// Reads inside functions of names not bound yet are allowed (a later module
    /// binding may meet them): for checking whole files, not for generation.
    pub(crate) forward: bool,
    /// Reading a token for its verdict only ([`super::NamesLayer::takes`]): an
    /// identifier's prefix check waits for the end of the run (`ident_due`).
    pub(crate) lazy: bool,
    ident_due: bool,
}

impl Machine {
    pub(crate) fn new(forward: bool) -> Self {
        Self {
            stmt: Stmt::Start,
            prev: Prev::Start,
            brackets: Vec::new(),
            segment: Vec::new(),
            awaiting: None,
            lambdas: Vec::new(),
            lambda_body: None,
            lambda_params: Vec::new(),
            walrus: Vec::new(),
            aug_target: None,
            bind_target: None,
            for_target: None,
            assigning: Vec::new(),
            ctx: Ctx::Ignore,
            ident_at: 0,
            indent: 0,
            opening: None,
            params: Vec::new(),
            forward,
            lazy: false,
            ident_due: false,
        }
    }

    /// Handles one lexer event at byte `at`.
    pub(crate) fn event(
        &mut self,
        ev: Event,
        lexer: &Lexer,
        frames: &mut Frames,
        at: usize,
        sink: &mut Sink<'_>,
    ) {
        match ev {
            Event::LineStart(indent) => {
                frames.line_at(indent);
                self.indent = indent;
            }
            Event::Start(b) => {
                self.aug_target = None;
                if let Some(t) = self.bind_target.take() {
                    if !matches!(b, b'[' | b'.' | b'(') {
                        self.store(&t.name, t.at, frames, sink);
                    }
                    frames.bind(&t.name, false);
                }
                if self.awaiting.is_some()
                    && !matches!(b, b'=' | b':' | b',' | b')' | b']' | b'}' | b';')
                {
                    // A statement's first name before an operator is read now; the
                    // operator may still be `+=` (then the name is assigned too).
                    if self.brackets.is_empty() && b"+-*/%&|^<>@".contains(&b) {
                        self.aug_target = self
                            .awaiting
                            .as_ref()
                            .filter(|a| a.target)
                            .map(|a| Pending { name: a.name.clone(), at: a.at });
                    }
                    self.resolve_awaiting(None, frames, sink);
                }
                if lexer.in_ident() {
                    self.ctx = self.context();
                    self.ident_at = at;
                }
            }
            Event::IdentByte => {
                if self.lazy {
                    self.ident_due = true;
                } else {
                    self.check_typed(lexer, frames, sink);
                }
            }
            Event::Name => {
                // The whole name is checked now (a name that resolves has viable
                // prefixes), so a deferred prefix check is moot; not a keyword's, which
                // a read may not start with (`READ_KEYWORDS`).
                let keyword = KEYWORDS.iter().any(|k| k.as_bytes() == lexer.ident());
                if std::mem::take(&mut self.ident_due) && keyword {
                    self.check_typed(lexer, frames, sink);
                }
                let name = String::from_utf8_lossy(lexer.ident()).into_owned();
                self.name(name, frames, sink);
            }
            Event::Literal => {
                // A string prefix (`rb'`) is viable: nothing waits.
                self.ident_due = false;
                if self.stmt == Stmt::Start {
                    self.stmt = Stmt::Segment;
                }
                self.prev = Prev::Atom;
            }
            Event::Op(op) => self.op(op, frames, sink),
            Event::Newline => self.end_statement(frames, sink),
        }
    }

    /// The lambdas at `depth` whose body a comma or a comprehension's `for` there ends
    /// (not while their parameters are read: `lambda a, b: ...`).
    fn end_lambdas_at(&mut self, depth: usize) {
        if self.lambdas.last() == Some(&depth) {
            return;
        }
        self.lambda_params.retain(|(d, _)| *d < depth);
        if self.lambda_body == Some(depth) {
            self.lambda_body = None;
        }
    }

    /// The role of a name starting now (see the module doc).
    fn context(&self) -> Ctx {
        let depth = self.brackets.len();
        let prev = self.prev;
        if prev == Prev::Op(Op::Dot) {
            return Ctx::Ignore;
        }
        match self.stmt {
            // `case` captures are stores in pyflakes, but the layer does not tell them
            // from values (permissive): no UnboundLocalError rule there.
            Stmt::Case | Stmt::FromNames => return Ctx::Bind { module: false, store: false },
            Stmt::Import if matches!(prev, Prev::Import | Prev::As | Prev::Op(Op::Comma)) => {
                return Ctx::Bind { module: false, store: false }
            }
            Stmt::Import | Stmt::FromModule => return Ctx::Ignore,
            Stmt::Global => return Ctx::Bind { module: true, store: false },
            _ => {}
        }
        match prev {
            Prev::Def => return Ctx::DefName,
            Prev::Class => return Ctx::ClassName,
            _ => {}
        }
        let starts_item = matches!(prev, Prev::Op(Op::Comma | Op::Star | Op::DoubleStar));
        if self.lambdas.last() == Some(&depth) && (prev == Prev::Lambda || starts_item) {
            return Ctx::LambdaParam;
        }
        if let Some(d) = self.for_target {
            if depth >= d {
                return if d == 0 {
                    Ctx::Bind { module: false, store: true }
                } else {
                    Ctx::CompTarget
                };
            }
        }
        if let Some(b) = self.brackets.last() {
            if b.params && (starts_item || matches!(prev, Prev::Op(Op::Open(_)))) {
                return Ctx::Param;
            }
        }
        match prev {
            Prev::As => return Ctx::Bind { module: false, store: true },
            Prev::Name | Prev::Atom => return Ctx::Ignore,
            _ => {}
        }
        let opens_item = matches!(prev, Prev::Op(Op::Open(_) | Op::Comma));
        if self.brackets.last().is_some_and(|b| b.binds)
            && (opens_item || prev == Prev::Op(Op::Star))
        {
            return Ctx::Bind { module: false, store: true };
        }
        match self.brackets.last() {
            None => {
                let segment = matches!(self.stmt, Stmt::Start | Stmt::Segment);
                let target_spot =
                    matches!(prev, Prev::Start | Prev::Op(Op::Assign | Op::Comma | Op::Star));
                if segment && target_spot {
                    Ctx::Target
                } else if prev == Prev::CondKeyword {
                    Ctx::Ambiguous
                } else {
                    Ctx::Read
                }
            }
            Some(b) if b.target && (opens_item || prev == Prev::Op(Op::Star)) => Ctx::Target,
            Some(_) if opens_item => Ctx::Ambiguous,
            Some(_) => Ctx::Read,
        }
    }

    /// Whether a bracket opening after `prev` may hold assignment targets.
    fn target_spot(&self, prev: Prev) -> bool {
        match self.brackets.last() {
            None => {
                matches!(self.stmt, Stmt::Start | Stmt::Segment)
                    && matches!(prev, Prev::Start | Prev::Op(Op::Assign | Op::Comma | Op::Star))
            }
            Some(b) => b.target && matches!(prev, Prev::Op(Op::Open(_) | Op::Comma | Op::Star)),
        }
    }

    fn name(&mut self, name: String, frames: &mut Frames, sink: &mut Sink<'_>) {
        if KEYWORDS.contains(&name.as_str()) {
            self.keyword(&name);
            return;
        }
        let at = self.ident_at;
        let started = self.stmt == Stmt::Start;
        if started {
            self.stmt = Stmt::Segment;
        }
        match self.ctx {
            Ctx::Ignore => {}
            // The wildcard pattern (`case _:`, `case [a, *_]:`) binds no name.
            Ctx::Bind { .. } if self.stmt == Stmt::Case && name == "_" => {}
            Ctx::Bind { module, store } => {
                if store {
                    // `for values[i] in ...` assigns no name: decided by the next
                    // token (then the name is bound, as before, permissively).
                    self.bind_target = Some(Pending { name, at });
                } else {
                    frames.bind(&name, module)
                }
            }
            Ctx::DefName | Ctx::ClassName => {
                // The body's frame opens at the header's `:`: decorators, bases,
                // defaults and annotations are read in the enclosing scope.
                frames.bind(&name, false);
                let kind =
                    if self.ctx == Ctx::DefName { FrameKind::Function } else { FrameKind::Class };
                self.opening = Some(kind);
                self.params.clear();
            }
            Ctx::Param => self.params.push(name),
            Ctx::LambdaParam => self.lambda_params.push((self.brackets.len(), name)),
            Ctx::CompTarget => {
                let d = self.for_target.unwrap_or(1).max(1);
                if let Some(b) = self.brackets.get_mut(d - 1) {
                    b.comp_targets.push(name);
                }
            }
            Ctx::Read
                if self.restricts(frames)
                    && SOFT_KEYWORDS.contains(&name.as_str())
                    && !frames.resolves(&name) =>
            {
                sink.refuse(&name, at)
            }
            Ctx::Read => self.read(name, at, frames, sink),
            Ctx::Ambiguous => self.awaiting = Some(Awaiting { name, at, target: false }),
            Ctx::Target if started && name == "case" => self.stmt = Stmt::Case,
            Ctx::Target => self.awaiting = Some(Awaiting { name, at, target: true }),
        }
        self.prev = Prev::Name;
    }

    fn keyword(&mut self, kw: &str) {
        let start = self.stmt == Stmt::Start;
        let depth = self.brackets.len();
        self.prev = Prev::Keyword;
        match kw {
            "def" => (self.stmt, self.prev) = (Stmt::Def, Prev::Def),
            "class" => (self.stmt, self.prev) = (Stmt::Class, Prev::Class),
            "lambda" => {
                self.lambdas.push(depth);
                self.prev = Prev::Lambda;
            }
            "as" => self.prev = Prev::As,
            "import" => {
                self.stmt =
                    if self.stmt == Stmt::FromModule { Stmt::FromNames } else { Stmt::Import };
                self.prev = Prev::Import;
            }
            "from" if start => self.stmt = Stmt::FromModule,
            "global" | "nonlocal" => self.stmt = Stmt::Global,
            "for" if start => {
                self.stmt = Stmt::For;
                self.for_target = Some(0);
            }
            "for" => {
                self.end_lambdas_at(depth);
                if let Some(b) = self.brackets.last_mut() {
                    b.comp = true;
                    b.target = false;
                    b.fors += 1;
                    b.first_iterable = false;
                    // Names its first element listed as possible targets are reads of
                    // the comprehension: they wait for its targets.
                    if b.segment_at < self.segment.len() {
                        b.pending.extend(self.segment.drain(b.segment_at..));
                    }
                }
                self.for_target = Some(depth);
            }
            "in" if self.for_target == Some(depth) => {
                self.for_target = None;
                if depth == 0 {
                    self.stmt = Stmt::Compound;
                }
                if let Some(b) = self.brackets.last_mut().filter(|b| b.comp && b.fors == 1) {
                    b.first_iterable = true;
                }
            }
            // A comprehension's condition: its first iterable has ended (an iterable is
            // a disjunction, so an `if` at the bracket's depth cannot be inside it).
            "if" if self.brackets.last().is_some_and(|b| b.first_iterable) => {
                if let Some(b) = self.brackets.last_mut() {
                    b.first_iterable = false;
                }
            }
            "if" | "elif" | "while" if start => {
                self.stmt = Stmt::Compound;
                self.prev = Prev::CondKeyword;
            }
            "else" | "try" | "finally" | "with" | "except" if start => self.stmt = Stmt::Compound,
            "return" | "assert" | "raise" | "del" | "yield" | "await" | "pass" | "break"
            | "continue"
                if start =>
            {
                self.stmt = Stmt::Load
            }
            "None" | "True" | "False" => {
                if start {
                    self.stmt = Stmt::Segment;
                }
                self.prev = Prev::Atom;
            }
            "async" => self.prev = Prev::Start,
            _ => {}
        }
    }

    fn op(&mut self, op: Op, frames: &mut Frames, sink: &mut Sink<'_>) {
        if self.awaiting.is_some() {
            self.resolve_awaiting(Some(op), frames, sink);
        }
        if let Some(t) = self.aug_target.take() {
            if op == Op::AugAssign {
                self.store(&t.name, t.at, frames, sink);
            }
        }
        let before = self.prev;
        let target = self.target_spot(before);
        if self.stmt == Stmt::Start && !matches!(op, Op::At) {
            self.stmt = Stmt::Segment;
        }
        let depth = self.brackets.len();
        self.prev = Prev::Op(op);
        if matches!(op, Op::Comma | Op::Colon) {
            self.bind_walrus(depth, frames);
        }
        match op {
            Op::Assign => {
                if depth == 0 && self.stmt == Stmt::Segment {
                    for p in std::mem::take(&mut self.segment) {
                        self.store(&p.name, p.at, frames, sink);
                        self.assigning.push(p.name);
                    }
                } else if let Some(b) = self.brackets.last_mut() {
                    b.first = false; // a keyword argument: no comprehension here
                }
            }
            Op::Colon => {
                if self.lambdas.last() == Some(&depth) {
                    self.lambdas.pop();
                    self.lambda_body.get_or_insert(depth);
                } else if depth == 0 && !matches!(self.stmt, Stmt::Segment | Stmt::Load) {
                    // A compound statement's header ends: a statement may follow.
                    if let Some(kind) = self.opening.take() {
                        frames.open(kind, self.indent);
                        for p in self.params.drain(..) {
                            frames.bind(&p, false);
                        }
                    }
                    self.stmt = Stmt::Start;
                    self.prev = Prev::Start;
                }
            }
            Op::Comma => {
                self.end_lambdas_at(depth);
                if let Some(b) = self.brackets.last_mut() {
                    if b.may_comprehend() {
                        b.first = false;
                        let pending = std::mem::take(&mut b.pending);
                        let tentative = std::mem::take(&mut b.tentative);
                        self.settle_reads(tentative, false, frames);
                        for p in pending {
                            self.read(p.name, p.at, frames, sink);
                        }
                    }
                }
            }
            Op::Open(c) => self.open_bracket(c, before, target, depth),
            Op::Close => self.close_bracket(frames, sink),
            Op::Semicolon => self.end_statement(frames, sink),
            // A starred item (`f(*xs`, `[*a`, `{**d`) is no comprehension's element
            // (`[*a for a in b]` is a SyntaxError): its reads are decided now, not left
            // for a `for` that cannot come (MBPP/70 typed an unbound name there until
            // the budget ran out: no way out settles it).
            Op::Star | Op::DoubleStar if matches!(before, Prev::Op(Op::Open(_))) => {
                if let Some(b) = self.brackets.last_mut() {
                    b.first = false;
                }
            }
            Op::Star if self.stmt == Stmt::FromNames => frames.star_import(),
            Op::At if self.stmt == Stmt::Start => self.stmt = Stmt::Load,
            _ => {}
        }
    }

    /// The name waiting for this token learns its role (`op` `None`: a token other
    /// than an operator).
    fn resolve_awaiting(&mut self, op: Option<Op>, frames: &mut Frames, sink: &mut Sink<'_>) {
        let Some(a) = self.awaiting.take() else { return };
        match (a.target, op) {
            (_, Some(Op::Walrus)) => {
                self.store(&a.name, a.at, frames, sink);
                self.walrus.push((a.name, self.brackets.len()));
            }
            (true, Some(Op::Comma | Op::Close | Op::Assign)) => {
                self.segment.push(Pending { name: a.name, at: a.at })
            }
            (true, Some(Op::Colon)) if self.brackets.is_empty() => {
                self.store(&a.name, a.at, frames, sink);
                frames.bind(&a.name, false)
            }
            (false, Some(Op::Assign)) => {} // a keyword argument or parameter default
            _ => self.read(a.name, a.at, frames, sink),
        }
    }

    /// A bracket opens (`c`) after `before`, at `depth`.
    fn open_bracket(&mut self, c: u8, before: Prev, target: bool, depth: usize) {
        let params = self.stmt == Stmt::Def && depth == 0;
        // A subscript never holds a comprehension (`a[x for x in y]` is a
        // SyntaxError): its reads are decided outside it.
        let subscript = c == b'[' && matches!(before, Prev::Name | Prev::Atom);
        let binds = before == Prev::As
            || (self.brackets.last().is_some_and(|b| b.binds)
                && matches!(before, Prev::Op(Op::Open(_) | Op::Comma | Op::Star)));
        let b = Bracket {
            target,
            first: !params && !binds && !subscript,
            binds,
            segment_at: self.segment.len(),
            comp: false,
            comp_targets: Vec::new(),
            fors: 0,
            first_iterable: false,
            params,
            pending: Vec::new(),
            tentative: Vec::new(),
        };
        self.brackets.push(b);
    }

    /// A bracket closes: what waited for it is decided (its comprehension's reads, the
    /// walrus targets and lambda parameters inside it).
    fn close_bracket(&mut self, frames: &mut Frames, sink: &mut Sink<'_>) {
        self.prev = Prev::Atom;
        if let Some(b) = self.brackets.pop() {
            if self.for_target.is_some_and(|d| d > self.brackets.len()) {
                self.for_target = None;
            }
            if self.lambda_body.is_some_and(|d| d > self.brackets.len()) {
                self.lambda_body = None;
            }
            let depth = self.brackets.len();
            self.lambda_params.retain(|(d, _)| *d <= depth);
            self.bind_walrus(self.brackets.len() + 1, frames);
            self.settle_reads(b.tentative, b.comp, frames);
            for p in b.pending {
                if b.comp && b.comp_targets.contains(&p.name) {
                    continue;
                }
                if b.comp && frames.resolves(&p.name) {
                    frames.note_read(&p.name, ReadSite::Comprehension);
                    continue;
                }
                self.read(p.name, p.at, frames, sink);
            }
        }
    }

    /// Binds the walrus targets whose value ends here: those at `depth` or deeper.
    fn bind_walrus(&mut self, depth: usize, frames: &mut Frames) {
        while self.walrus.last().is_some_and(|(_, d)| *d >= depth) {
            if let Some((name, _)) = self.walrus.pop() {
                frames.bind(&name, false);
            }
        }
    }

    /// A read of `name` (typed at `at`): checked now, or kept for a comprehension.
    fn read(&mut self, name: String, at: usize, frames: &mut Frames, sink: &mut Sink<'_>) {
        if EXEMPT.contains(&name.as_str())
            || self.local_names().any(|n| n == name)
            || (self.lambda_body.is_some() && self.assigning.contains(&name))
        {
            return;
        }
        if frames.resolves(&name) {
            self.note_read(name, frames);
            return;
        }
        if let Some(b) = self.brackets.iter_mut().rev().find(|b| b.may_comprehend()) {
            b.pending.push(Pending { name, at });
            return;
        }
        if self.forward && frames.in_function() {
            return;
        }
        sink.refuse(&name, at);
    }

    /// A read that resolved: where it stands decides its claim (see `frames.rs`); in a
    /// bracket that may still turn out a comprehension, the claim waits.
    fn note_read(&mut self, name: String, frames: &mut Frames) {
        if self.lambda_body.is_some() {
            frames.note_read(&name, ReadSite::Lambda);
        } else if self.brackets.iter().any(|b| b.comp) {
            frames.note_read(&name, ReadSite::Comprehension);
        } else if let Some(b) = self.brackets.iter_mut().rev().find(|b| b.may_comprehend()) {
            b.tentative.push(name);
        } else {
            frames.note_read(&name, ReadSite::Plain);
        }
    }

    /// A bracket's waiting reads are decided: a comprehension's (`comp`), or its first
    /// element's (then they wait on in the next bracket out that may comprehend).
    fn settle_reads(&mut self, names: Vec<String>, comp: bool, frames: &mut Frames) {
        for name in names {
            if comp {
                frames.note_read(&name, ReadSite::Comprehension);
            } else {
                self.note_read(name, frames);
            }
        }
    }

    /// An assignment of `name` (typed at `at`): refused where it makes an earlier read
    /// of the function an UnboundLocalError.
    fn store(&mut self, name: &str, at: usize, frames: &Frames, sink: &mut Sink<'_>) {
        if !EXEMPT.contains(&name) && frames.assignment_unbinds(name) {
            sink.refuse(name, at);
        }
    }

    /// NEWLINE, `;` or the end of the text: the statement's undecided names are read.
    pub(crate) fn end_statement(&mut self, frames: &mut Frames, sink: &mut Sink<'_>) {
        self.bind_walrus(0, frames);
        if let Some(t) = self.bind_target.take() {
            self.store(&t.name, t.at, frames, sink);
            frames.bind(&t.name, false);
        }
        if self.awaiting.is_some() {
            self.resolve_awaiting(None, frames, sink);
        }
        for p in std::mem::take(&mut self.segment) {
            self.read(p.name, p.at, frames, sink);
        }
        for name in self.assigning.drain(..) {
            frames.bind(&name, false);
        }
        self.stmt = Stmt::Start;
        self.prev = Prev::Start;
        self.lambdas.clear();
        self.lambda_body = None;
        self.lambda_params.clear();
        self.for_target = None;
    }
}
