//! The tree of parsers: the live parser nodes, the regex of the next segment and
//! feeding text.
//!
//! The nodes form a path from the root to the active node (a stack); the only
//! branching happens at its end, among the alternatives of the next segment, so the
//! tree stays broom-shaped. The next segment's alternatives are gathered from the top
//! node down through every node that could end here; that walk stops at the first
//! node that cannot end (a statement needs its `;`), so its cost depends on the
//! nodes it walks and the number of distinct variable kinds in scope, not on the
//! number of names, the nesting or the program's length: the names in scope are one
//! alternative ([`crate::scoped_names`]), the node stack is persistent below its top
//! ([`FrameStack`]) and look-ahead sets are computed on copies of the few nodes
//! involved. Feeding a segment is linear in its length.

use std::cell::OnceCell;
use std::rc::Rc;

use crate::alt::Alt;
use crate::byte_set::{is_ws, ByteSet};
use crate::check_error::CheckError;
use crate::finishing_order::choice_cost;
use crate::frame_stack::FrameStack;
use crate::lexeme::Lex;
use crate::node::{Act, Ann, Choice, Frame};
use crate::scope::Env;
use crate::scope_trie::Kind;
use crate::seg_auto::SegAuto;
use crate::seg_dfa::DfaError;

/// The choices open now with the depth of the node offering each, and those nodes by
/// depth (see [`Tree::choices_and_frames`]).
type ChoicesAndFrames = (Vec<(usize, Choice)>, Vec<(usize, Frame)>);

/// A consumed lexeme, as logged for building the syntax tree.
#[derive(Clone, Debug)]
pub struct Token {
    /// The lexeme's text (no surrounding whitespace).
    pub text: String,
    /// Its note.
    pub ann: Ann,
    /// Byte offset in the script.
    pub offset: usize,
}

#[derive(Debug)]
struct LogNode {
    tok: Token,
    prev: Option<Rc<LogNode>>,
}

/// The next segment: its alternatives, their automaton and their regex.
#[derive(Debug)]
pub struct Segment {
    /// Alternatives (after the carried byte, if any); `action` indexes `choices`.
    pub alts: Vec<Alt>,
    /// The choices the alternatives stand for, with the depth of the offering node.
    pub choices: Vec<(usize, Choice)>,
    /// The automaton recognising the segment (an error only through a bug in a
    /// parser node: a fixed part that does not compile).
    pub auto: Result<SegAuto, DfaError>,
    /// The regex, written on demand (it lists every name in scope).
    regex: OnceCell<String>,
}

impl Segment {
    /// The regex every alternative's text matches: A1 holds for it. Written on first
    /// use: its size grows with the names in scope, so only error messages, the
    /// visualizer and the A1 tests ask for it.
    pub fn regex(&self) -> &str {
        self.regex.get_or_init(|| {
            self.alts.iter().map(|a| format!("(?:{})", a.regex())).collect::<Vec<_>>().join("|")
        })
    }

    /// The automaton, or the error as a [`CheckError`] at `offset`.
    pub fn auto_at(&self, offset: usize) -> Result<&SegAuto, CheckError> {
        self.auto.as_ref().map_err(|e| CheckError { offset, expected: e.to_string() })
    }
}

/// The tree of parsers for one script.
#[derive(Clone, Debug)]
pub struct Tree {
    env: Rc<Env>,
    stack: FrameStack,
    log: Option<Rc<LogNode>>,
    carry: Option<u8>,
    /// Bytes fed so far (offsets of logged tokens).
    fed: usize,
    seg: Option<Rc<Segment>>,
}

impl Tree {
    /// A tree for a script of either kind (the first word decides).
    pub fn new(env: Rc<Env>) -> Tree {
        Tree::with_root(env, Frame::root(""))
    }

    /// A tree for a script of `kind` (`effect` or `talent`).
    pub fn for_kind(env: Rc<Env>, kind: &str) -> Tree {
        Tree::with_root(env, Frame::root(kind))
    }

    fn with_root(env: Rc<Env>, root: Frame) -> Tree {
        Tree { env, stack: FrameStack::new(root), log: None, carry: None, fed: 0, seg: None }
    }

    /// The environment.
    pub fn env(&self) -> &Rc<Env> {
        &self.env
    }

    /// Whether the script is complete (nothing may follow).
    pub fn has_finished(&self) -> bool {
        self.stack.len() == 1 && self.stack.get(0).is_finished_root()
    }

    /// The script's kind and name once known.
    pub fn header(&self) -> Option<(String, String)> {
        let toks = self.tokens();
        (toks.len() >= 2).then(|| (toks[0].text.clone(), toks[1].text.clone()))
    }

    /// The name a finished effect registers (callable by later scripts as
    /// `Name(actor, data)`: pass it in [`Env::new`]'s effects); `None` otherwise.
    pub fn registered_effect(&self) -> Option<String> {
        let (kind, name) = self.header()?;
        (self.has_finished() && kind == "effect").then_some(name)
    }

    /// The live nodes, root first (allocates: for the visualizer).
    pub fn frames(&self) -> Vec<&Frame> {
        self.stack.to_vec()
    }

    /// The number of live nodes (the nesting at the cursor).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The consumed lexemes in order.
    pub fn tokens(&self) -> Vec<Token> {
        let mut out = Vec::new();
        let mut cur = self.log.as_deref();
        while let Some(n) = cur {
            out.push(n.tok.clone());
            cur = n.prev.as_deref();
        }
        out.reverse();
        out
    }

    /// The byte carried from the last segment's look-ahead, if any.
    pub fn carry(&self) -> Option<u8> {
        self.carry
    }

    /// Every choice open now, with the depth of the node offering it.
    fn choices(&self) -> Vec<(usize, Choice)> {
        self.choices_and_frames().0
    }

    /// [`Tree::choices`], and the nodes offering them as they stand when taking one
    /// of their choices (the nodes above them ended), by depth.
    fn choices_and_frames(&self) -> ChoicesAndFrames {
        let mut out = Vec::new();
        let mut frames = Vec::new();
        let mut i = self.stack.len() - 1;
        let mut below = self.stack.iter_down().skip(1);
        let mut frame = self.stack.get(i).clone();
        loop {
            out.extend(frame.choices(&self.env).into_iter().map(|c| (i, c)));
            let sum = frame.can_end();
            frames.push((i, frame));
            match sum {
                Some(sum) if i > 0 => {
                    i -= 1;
                    let mut parent = below.next().expect("a frame below index i > 0").clone();
                    parent.child_done(&sum, &self.env);
                    frame = parent;
                }
                _ => break,
            }
        }
        (out, frames)
    }

    /// Takes a choice: ends the nodes above the offering one, steps it, pushes children.
    fn apply(&mut self, depth: usize, choice: &Choice, text: &str, offset: usize) {
        let env = self.env.clone();
        while self.stack.len() > depth + 1 {
            let top = self.stack.pop().expect("depth is below the stack top");
            if let (Some(sum), Some(parent)) = (top.can_end(), self.stack.last_mut()) {
                parent.child_done(&sum, &env);
            }
        }
        // A name in scope stands for the variable of its kind (the alternative matched
        // only names of accepted kinds, so the look-up finds one).
        let act = match (&choice.act, &choice.lex) {
            (Act::Scoped, Lex::Scoped(names)) => match names.scope.lookup(text.as_bytes()) {
                Some(k) => {
                    let kind = env.kind(k);
                    Act::Var(kind.ty, kind.assignable && names.assignable)
                }
                None => Act::Kw,
            },
            (act, _) => act.clone(),
        };
        let children = self.stack.get_mut(depth).step(&act, text, &env);
        self.stack.extend(children);
        self.log = Some(Rc::new(LogNode {
            tok: Token { text: text.to_string(), ann: choice.ann.clone(), offset },
            prev: self.log.take(),
        }));
        self.seg = None;
    }

    /// Bytes that may start the segment after `choice` offered by `at` (the node at
    /// `depth` as it stands when the choice is taken), with whitespace; `None` when
    /// the script is finished after it. Works on copies of the few nodes involved,
    /// never on a copy of the tree.
    fn first_after(&self, depth: usize, at: &Frame, choice: &Choice) -> Option<ByteSet> {
        let text = match &choice.lex {
            Lex::Lit(s) => s.to_string(),
            Lex::Number => "0".into(),
            Lex::Str => "\"\"".into(),
            Lex::Name { upper: true, .. } => "Xx".into(),
            Lex::Name { .. } | Lex::Scoped(_) => "xx".into(),
        };
        let mut f = at.clone();
        let children = f.step(&choice.act, &text, &self.env);
        let mut over = Vec::with_capacity(children.len() + 1);
        over.push(f);
        over.extend(children);
        if depth == 0 && over.len() == 1 && over[0].is_finished_root() {
            return None;
        }
        // Statement and prefix nodes (after a variable: 50 API functions at every
        // statement start) that cannot end have choices fixed by a key: memoised.
        let top = over.last().expect("over holds the stepped node");
        let key = if top.can_end().is_none() { top.choice_key() } else { None };
        if let Some(hit) = key.as_ref().and_then(|k| self.env.firsts.borrow().get(k).copied()) {
            return Some(hit);
        }
        // The choices from the top down through every node that could end, as
        // `choices` walks them: the nodes above `depth` are `over`, those below are
        // the tree's (taking a choice never changes them).
        let mut below = self.stack.iter_down().skip(self.stack.len() - depth);
        let mut set = crate::byte_set::WS_BYTES;
        let mut frame = over.pop().expect("over holds the stepped node");
        loop {
            for c in frame.choices(&self.env) {
                set.0 |= c.lex.first().0;
            }
            let Some(sum) = frame.can_end() else { break };
            let mut parent = match over.pop() {
                Some(p) => p,
                None => match below.next() {
                    Some(p) => p.clone(),
                    None => break,
                },
            };
            parent.child_done(&sum, &self.env);
            frame = parent;
        }
        if let Some(k) = key {
            self.env.firsts.borrow_mut().insert(k, set);
        }
        Some(set)
    }

    /// The next segment (cached until the tree changes). Empty when finished.
    pub fn segment(&mut self) -> Rc<Segment> {
        if let Some(s) = &self.seg {
            return s.clone();
        }
        let (choices, frames) =
            if self.has_finished() { (Vec::new(), Vec::new()) } else { self.choices_and_frames() };
        let at = |depth: usize| {
            &frames.iter().find(|(d, _)| *d == depth).expect("every offering node is in frames").1
        };
        let mut alts = Vec::new();
        for (k, (depth, choice)) in choices.iter().enumerate() {
            let forbidden = choice.lex.forbidden_after();
            let (lex, la) = match &choice.lex {
                // One look-ahead class per accepted kind: what may follow a variable
                // of that kind (the look-ahead does not depend on the name).
                Lex::Scoped(names) => {
                    let mut names = (**names).clone();
                    let mut union = ByteSet::default();
                    for kind in &mut names.kinds {
                        let Kind { ty, assignable } = self.env.kind(kind.id);
                        let var = Choice {
                            lex: Lex::Lit("xx".into()),
                            act: Act::Var(ty, assignable && names.assignable),
                            ann: Ann::None,
                        };
                        kind.la = ByteSet(
                            self.first_after(*depth, at(*depth), &var).unwrap_or_default().0
                                & !forbidden.0,
                        );
                        union.0 |= kind.la.0;
                    }
                    (Lex::Scoped(Rc::new(names)), Some(union))
                }
                lex if lex.extensible() => (
                    lex.clone(),
                    self.first_after(*depth, at(*depth), choice)
                        .map(|f| ByteSet(f.0 & !forbidden.0)),
                ),
                lex => (lex.clone(), None),
            };
            let alt = Alt { lex, done: Vec::new(), la, action: k };
            let alt = match self.carry {
                Some(c) => alt.after(c),
                None => Some(alt),
            };
            alts.extend(alt);
        }
        let auto = self.automaton(&alts);
        let seg = Rc::new(Segment { alts, choices, auto, regex: OnceCell::new() });
        self.seg = Some(seg.clone());
        seg
    }

    /// The automaton of `alts`: the first names-in-scope alternative walks the scope's
    /// trie, the others form one regex whose DFA the environment caches (a second
    /// names-in-scope alternative, which no node offers today, would be written out
    /// into that regex: correct, but it costs the names in scope).
    fn automaton(&self, alts: &[Alt]) -> Result<SegAuto, DfaError> {
        let mut names = None;
        let mut fixed: Vec<&Alt> = Vec::new();
        for a in alts {
            match &a.lex {
                Lex::Scoped(n) if names.is_none() => {
                    names = Some((n.clone(), a.done.first().copied()))
                }
                _ => fixed.push(a),
            }
        }
        let fixed = if fixed.is_empty() { None } else { Some(self.env.dfas.get_for_alts(&fixed)?) };
        Ok(SegAuto::new(fixed, names))
    }

    /// The regex the next segment must match, or `None` once the script is finished.
    pub fn next_regex(&mut self) -> Option<String> {
        if self.has_finished() {
            None
        } else {
            Some(self.segment().regex().to_string())
        }
    }

    /// Feeds one whole segment (text matching [`Tree::next_regex`]).
    pub fn feed_segment(&mut self, text: &str) -> Result<(), CheckError> {
        let seg = self.segment();
        let mut full = Vec::new();
        full.extend(self.carry);
        full.extend_from_slice(text.as_bytes());
        let Some(alt) = seg.alts.iter().find(|a| a.matches(&full)) else {
            return Err(CheckError { offset: 0, expected: seg.regex().to_string() });
        };
        let (depth, choice) = seg.choices[alt.action].clone();
        let start = self.fed - usize::from(self.carry.is_some());
        let lead =
            if alt.done.is_empty() { full.iter().take_while(|b| is_ws(**b)).count() } else { 0 };
        let end = if alt.la.is_some() { full.len() - 1 } else { full.len() };
        let lexeme = String::from_utf8_lossy(&full[lead..end]).into_owned();
        self.carry = None;
        self.apply(depth, &choice, &lexeme, start + lead);
        self.fed += text.len();
        if alt.la.is_some() {
            let c = full[full.len() - 1];
            if !is_ws(c) {
                self.carry = Some(c);
                self.complete_carry();
            }
        }
        Ok(())
    }

    /// A carried byte that is a whole lexeme by itself (`(`, `;`, ...) is taken at once.
    fn complete_carry(&mut self) {
        let Some(c) = self.carry else { return };
        let choices = self.choices();
        let single = choices.iter().find(|(_, ch)| {
            matches!(&ch.lex, Lex::Lit(s) if s.as_bytes() == [c]) && !ch.lex.extensible()
        });
        if let Some((depth, choice)) = single.cloned() {
            self.carry = None;
            self.apply(depth, &choice, &(c as char).to_string(), self.fed - 1);
        }
        self.seg = None;
    }

    /// The number of lexemes of the finishing plan from here: at each step the
    /// choice the walker's finishing order ranks first (closing outer nodes first,
    /// then returns and literals), written as its shortest text. `cap` when the plan
    /// is longer (or stuck). The plan asks only for choices, never for segment
    /// regexes, so it costs microseconds per lexeme.
    pub fn finish_len(&self, cap: usize) -> usize {
        let mut t = Tree { log: None, seg: None, ..self.clone() };
        let mut n = 0;
        while !t.has_finished() {
            if n >= cap {
                return cap;
            }
            let carry = t.carry.take();
            let best = t
                .choices()
                .into_iter()
                .filter_map(|(d, c)| {
                    let text = c.lex.shortest(carry)?;
                    Some((choice_cost(d, &c), d, c, text))
                })
                .min_by_key(|x| x.0);
            let Some((_, depth, choice, text)) = best else { return cap };
            t.apply(depth, &choice, &text, 0);
            n += 1;
        }
        n
    }

    /// Feeds any text: splits it into segments with the segment DFAs. On error the
    /// offset is that of the first byte no continuation accepts.
    pub fn feed_text(&mut self, text: &str) -> Result<(), CheckError> {
        let bytes = text.as_bytes();
        let mut pos = 0;
        while pos < bytes.len() {
            if self.has_finished() {
                return Err(CheckError { offset: pos, expected: "(end of script)".into() });
            }
            if self.carry.is_none() && bytes[pos..].iter().all(|b| is_ws(*b)) {
                // Whitespace may start any segment: keep none of it, count its bytes.
                self.fed += bytes.len() - pos;
                return Ok(());
            }
            let seg = self.segment();
            let auto = seg.auto_at(pos)?;
            let mut s = auto.start();
            let mut i = pos;
            loop {
                if i == bytes.len() {
                    return Err(CheckError { offset: i, expected: seg.regex().to_string() });
                }
                s = auto.next(&s, bytes[i]);
                if auto.is_dead(&s) {
                    return Err(CheckError { offset: i, expected: seg.regex().to_string() });
                }
                i += 1;
                if auto.accepts(&s) {
                    break;
                }
            }
            let piece = std::str::from_utf8(&bytes[pos..i])
                .map_err(|_| CheckError { offset: pos, expected: seg.regex().to_string() })?;
            self.feed_segment(piece)?;
            pos = i;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Api;

    fn tree() -> Tree {
        Tree::new(Rc::new(Env::new(Api::dungeon(), vec![])))
    }

    #[test]
    fn a_small_effect_is_fed_segment_by_segment() {
        let mut t = tree();
        let src = "effect Burning;\nhook GetDescription = function(data)\n  return \"Burns for \" .. NumStr(data.power);\nend;";
        t.feed_text(src).unwrap();
        assert!(t.has_finished(), "{:?}", t.next_regex());
        assert_eq!(t.registered_effect().as_deref(), Some("Burning"));
        assert!(t.tokens().iter().any(|k| k.text == "NumStr"));
    }

    #[test]
    fn the_tree_stays_small_however_long_the_program() {
        let head = "talent T;\nhook Do = function(user, target)\n";
        let mut short = tree();
        short.feed_text(&format!("{head}{}", "  Damage(user, 1);\n".repeat(5))).unwrap();
        let mut long = tree();
        long.feed_text(&format!("{head}{}", "  Damage(user, 1);\n".repeat(500))).unwrap();
        assert_eq!(short.frames().len(), long.frames().len());
        assert_eq!(short.segment().alts.len(), long.segment().alts.len());
        assert_eq!(short.next_regex(), long.next_regex());
        // Broom-shaped: one path of nodes; branching only among the next alternatives.
        assert!(
            long.frames().len() <= 4,
            "{:?}",
            long.frames().iter().map(|f| f.kind()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn segment_unions_built_from_cached_alternatives_match_their_regex() {
        // Every segment of a script: the fixed part's automaton (the union of the
        // alternatives' parsed regexes, shared through the cache) must match exactly
        // what the union regex written out and parsed whole matches.
        let mut t = tree();
        let src = "talent Zap;\nhook Do = function(user, target)\n  local n: number = 2;\n  if user.hp > n then\n    Damage(user, n + 1);\n  end;\nend;\nhook GetDescription = function(user)\n  return \"zap\";\nend;\n";
        let mut pos = 0;
        let mut checked = 0;
        while !src[pos..].trim().is_empty() {
            let seg = t.segment();
            let fixed: Vec<&Alt> =
                seg.alts.iter().filter(|a| !matches!(a.lex, Lex::Scoped(_))).collect();
            if !fixed.is_empty() {
                let cached = t.env.dfas.get_for_alts(&fixed).unwrap();
                let regex = fixed
                    .iter()
                    .map(|a| format!("(?:{})", a.regex()))
                    .collect::<Vec<_>>()
                    .join("|");
                let whole = crate::dfa::SegDfa::build(&regex).unwrap();
                assert_eq!(
                    crate::dfa::difference(&cached, &whole),
                    None,
                    "at byte {pos}: /{regex}/"
                );
                checked += 1;
            }
            let auto = seg.auto.as_ref().unwrap();
            let mut s = auto.start();
            let mut end = pos;
            while !auto.accepts(&s) {
                let b = *src
                    .as_bytes()
                    .get(end)
                    .unwrap_or_else(|| panic!("no segment from byte {pos}: /{}/", seg.regex()));
                s = auto.next(&s, b);
                assert!(!auto.is_dead(&s), "byte {end} refused: /{}/", seg.regex());
                end += 1;
            }
            t.feed_segment(&src[pos..end]).unwrap();
            pos = end;
        }
        assert!(t.has_finished());
        assert!(checked > 30, "{checked} segments checked");
    }

    #[test]
    fn type_errors_are_refused_where_they_start() {
        let mut t = tree();
        let src = "effect Burning;\nhook GetDescription = function(data)\n  return 1;";
        let err = t.feed_text(src).unwrap_err();
        assert_eq!(&src[err.offset..err.offset + 1], "1", "{err}");
    }
}
