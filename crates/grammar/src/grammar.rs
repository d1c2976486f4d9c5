//! The compiled grammar: terminals with their regexes and priorities, and the rules
//! expanded from EBNF to plain BNF productions (what the LR table builder and the
//! Earley recognizer both consume).
//!
//! Expansion: `x?` / `[x]` and groups are inlined as alternatives (no empty helper
//! rules, which keeps LR tables free of spurious conflicts); `x+` becomes a
//! left-recursive helper rule `__plus_N`, and `x*` inlines as "absent | x+". `?rule`
//! and `_rule` only shape trees in Lark; a recognizer has no trees, so they are plain
//! rules here.

use std::collections::HashMap;

use crate::error::{GrammarError, Pos};
use crate::format::{parse_grammar, Definition, Expr, GrammarAst};
use crate::termset::TermSet;

pub use crate::ids::{NonterminalId, ProductionId, TerminalId};

/// A grammar symbol on the right of a production.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    /// A terminal.
    T(TerminalId),
    /// A nonterminal.
    N(NonterminalId),
}

/// A terminal: what the lexer produces.
#[derive(Clone, Debug, PartialEq)]
pub struct Terminal {
    /// Its name: the definition's name, or the quoted literal / regex for anonymous ones.
    pub name: String,
    /// The regex (regex-automata syntax) the lexer matches; `None` for `%declare`d
    /// terminals (made by a layer above the lexer, e.g. INDENT) and for `$END`.
    pub pattern: Option<String>,
    /// Lark priority: between matches of the same length, the higher wins.
    pub priority: i32,
    /// Defined by a plain string literal: beats a regex of the same priority.
    pub is_literal: bool,
    /// Named in `%ignore`: the lexer skips it.
    pub ignored: bool,
}

/// One BNF production `lhs -> rhs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Production {
    /// The rule it belongs to.
    pub lhs: NonterminalId,
    /// Its symbols.
    pub rhs: Vec<Symbol>,
}

/// A nonterminal (a rule, or a helper made by EBNF expansion).
#[derive(Clone, Debug, PartialEq)]
pub struct Nonterminal {
    /// The rule name (helpers are named `__plus_N`).
    pub name: String,
    /// Its productions.
    pub productions: Vec<ProductionId>,
}

/// A grammar in BNF form with its lexical terminals.
#[derive(Clone, Debug)]
pub struct Grammar {
    /// Terminal 0 is always `$END` (end of input).
    pub terminals: Vec<Terminal>,
    /// All nonterminals.
    pub nonterminals: Vec<Nonterminal>,
    /// All productions.
    pub productions: Vec<Production>,
    /// The start nonterminal.
    pub start: NonterminalId,
}

/// The `$END` terminal id.
pub const END: TerminalId = TerminalId::new(0);

impl Grammar {
    /// Which nonterminals derive the empty string (indexed by nonterminal), computed to
    /// a fixed point.
    pub fn nullable(&self) -> Vec<bool> {
        let mut nullable = vec![false; self.nonterminals.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for p in &self.productions {
                if !nullable[p.lhs.index()]
                    && p.rhs.iter().all(|s| matches!(s, Symbol::N(n) if nullable[n.index()]))
                {
                    nullable[p.lhs.index()] = true;
                    changed = true;
                }
            }
        }
        nullable
    }

    /// Reads and expands a grammar with start rule `start`.
    pub fn parse(src: &str) -> Result<Grammar, GrammarError> {
        Self::parse_with_start(src, "start")
    }

    /// Reads and expands a grammar with the given start rule.
    pub fn parse_with_start(src: &str, start: &str) -> Result<Grammar, GrammarError> {
        let ast = parse_grammar(src)?;
        Builder::new(&ast)?.build(start)
    }

    /// The terminal named `name`, if any.
    pub fn terminal(&self, name: &str) -> Option<TerminalId> {
        self.terminals.iter().position(|t| t.name == name).map(TerminalId::from_index)
    }

    /// The nonterminal named `name`, if any.
    pub fn nonterminal(&self, name: &str) -> Option<NonterminalId> {
        self.nonterminals.iter().position(|t| t.name == name).map(NonterminalId::from_index)
    }

    /// Human-readable name of a symbol.
    pub fn symbol_name(&self, s: Symbol) -> &str {
        match s {
            Symbol::T(t) => &self.terminals[t.index()].name,
            Symbol::N(n) => &self.nonterminals[n.index()].name,
        }
    }

    /// `lhs: a b · c` rendering of a production with a dot (dot = None: no dot).
    pub fn render_production(&self, p: ProductionId, dot: Option<usize>) -> String {
        let prod = &self.productions[p.index()];
        let mut s = format!("{}:", self.nonterminals[prod.lhs.index()].name);
        for (i, sym) in prod.rhs.iter().enumerate() {
            if dot == Some(i) {
                s.push_str(" ·");
            }
            s.push(' ');
            s.push_str(self.symbol_name(*sym));
        }
        if dot == Some(prod.rhs.len()) {
            s.push_str(" ·");
        }
        if prod.rhs.is_empty() && dot.is_none() {
            s.push_str(" <empty>");
        }
        s
    }

    /// Number of terminals (including `$END`).
    pub fn num_terminals(&self) -> usize {
        self.terminals.len()
    }
}

struct Builder<'a> {
    defs: HashMap<&'a str, &'a Definition>,
    ast: &'a GrammarAst,
    terminals: Vec<Terminal>,
    term_index: HashMap<String, TerminalId>,
    literal_index: HashMap<(String, bool), TerminalId>,
    nonterminals: Vec<Nonterminal>,
    nt_index: HashMap<String, NonterminalId>,
    productions: Vec<Production>,
    plus_cache: HashMap<Vec<Vec<Symbol>>, NonterminalId>,
}

impl<'a> Builder<'a> {
    fn new(ast: &'a GrammarAst) -> Result<Self, GrammarError> {
        let mut defs = HashMap::new();
        for d in &ast.defs {
            if defs.insert(d.name.as_str(), d).is_some() {
                return Err(GrammarError::Duplicate { pos: d.pos, name: d.name.clone() });
            }
        }
        for (n, pos) in &ast.declare {
            if defs.contains_key(n.as_str()) {
                return Err(GrammarError::Duplicate { pos: *pos, name: n.clone() });
            }
        }
        let mut b = Builder {
            defs,
            ast,
            terminals: vec![Terminal {
                name: "$END".into(),
                pattern: None,
                priority: 0,
                is_literal: false,
                ignored: false,
            }],
            term_index: HashMap::new(),
            literal_index: HashMap::new(),
            nonterminals: Vec::new(),
            nt_index: HashMap::new(),
            productions: Vec::new(),
            plus_cache: HashMap::new(),
        };
        b.term_index.insert("$END".into(), END);
        for (n, _) in &ast.declare {
            b.add_terminal(Terminal {
                name: n.clone(),
                pattern: None,
                priority: 0,
                is_literal: false,
                ignored: false,
            });
        }
        Ok(b)
    }

    fn add_terminal(&mut self, t: Terminal) -> TerminalId {
        let id = TerminalId::from_index(self.terminals.len());
        self.term_index.insert(t.name.clone(), id);
        self.terminals.push(t);
        id
    }

    /// Regex text of a terminal expression (names refer to other terminals).
    fn regex_of(&self, e: &Expr, stack: &mut Vec<String>) -> Result<String, GrammarError> {
        Ok(match e {
            Expr::Literal(s, ci, _) => {
                let esc = regex_syntax::escape(s);
                if *ci {
                    format!("(?i:{esc})")
                } else {
                    esc
                }
            }
            Expr::Regex(r, flags, _) => {
                if flags.is_empty() {
                    format!("(?:{r})")
                } else {
                    format!("(?{}:{r})", flags.replace('u', ""))
                }
            }
            Expr::Name(n, pos) => {
                let Some(d) = self.defs.get(n.as_str()) else {
                    return Err(GrammarError::Undefined { pos: *pos, name: n.clone() });
                };
                if !d.is_terminal {
                    return Err(GrammarError::Syntax {
                        pos: *pos,
                        message: format!(
                            "terminal definitions may only use terminals, but `{n}` is a rule"
                        ),
                    });
                }
                if stack.contains(n) {
                    return Err(GrammarError::Syntax {
                        pos: *pos,
                        message: format!("terminal `{n}` is defined in terms of itself"),
                    });
                }
                stack.push(n.clone());
                let r = self.regex_of(&d.expr, stack)?;
                stack.pop();
                format!("(?:{r})")
            }
            Expr::Seq(v) => {
                v.iter().map(|x| self.regex_of(x, stack)).collect::<Result<Vec<_>, _>>()?.concat()
            }
            Expr::Alt(v) => format!(
                "(?:{})",
                v.iter().map(|x| self.regex_of(x, stack)).collect::<Result<Vec<_>, _>>()?.join("|")
            ),
            Expr::Opt(x) => format!("(?:{})?", self.regex_of(x, stack)?),
            Expr::Star(x) => format!("(?:{})*", self.regex_of(x, stack)?),
            Expr::Plus(x) => format!("(?:{})+", self.regex_of(x, stack)?),
            Expr::Repeat(x, lo, hi) => format!("(?:{}){{{lo},{hi}}}", self.regex_of(x, stack)?),
        })
    }

    /// The terminal id for a named terminal definition, creating it on first use.
    fn named_terminal(&mut self, n: &str, pos: Pos) -> Result<TerminalId, GrammarError> {
        if let Some(&t) = self.term_index.get(n) {
            return Ok(t);
        }
        let Some(d) = self.defs.get(n).copied() else {
            return Err(GrammarError::Undefined { pos, name: n.to_string() });
        };
        let pattern = self.regex_of(&d.expr, &mut vec![n.to_string()])?;
        let is_literal = matches!(d.expr, Expr::Literal(..));
        let id = self.add_terminal(Terminal {
            name: n.to_string(),
            pattern: Some(pattern),
            priority: d.priority,
            is_literal,
            ignored: false,
        });
        if let Expr::Literal(s, ci, _) = &d.expr {
            self.literal_index.entry((s.clone(), *ci)).or_insert(id);
        }
        Ok(id)
    }

    fn literal_terminal(&mut self, s: &str, ci: bool) -> TerminalId {
        if let Some(&t) = self.literal_index.get(&(s.to_string(), ci)) {
            return t;
        }
        // A named terminal defined as exactly this literal is reused (as in Lark).
        let named = self.ast.defs.iter().find(|d| {
            d.is_terminal && matches!(&d.expr, Expr::Literal(x, c, _) if x == s && *c == ci)
        });
        if let Some(d) = named {
            let name = d.name.clone();
            let pos = d.pos;
            if let Ok(t) = self.named_terminal(&name, pos) {
                return t;
            }
        }
        let esc = regex_syntax::escape(s);
        let pattern = if ci { format!("(?i:{esc})") } else { esc };
        let name = format!("\"{}\"", s.escape_default());
        let id = self.add_terminal(Terminal {
            name,
            pattern: Some(pattern),
            priority: 0,
            is_literal: true,
            ignored: false,
        });
        self.literal_index.insert((s.to_string(), ci), id);
        id
    }

    fn regex_terminal(&mut self, r: &str, flags: &str) -> TerminalId {
        let name = format!("/{r}/{flags}");
        if let Some(&t) = self.term_index.get(&name) {
            return t;
        }
        let pattern = if flags.is_empty() {
            format!("(?:{r})")
        } else {
            format!("(?{}:{r})", flags.replace('u', ""))
        };
        self.add_terminal(Terminal {
            name,
            pattern: Some(pattern),
            priority: 0,
            is_literal: false,
            ignored: false,
        })
    }

    fn nonterminal(&mut self, name: &str) -> NonterminalId {
        if let Some(&n) = self.nt_index.get(name) {
            return n;
        }
        let id = NonterminalId::from_index(self.nonterminals.len());
        self.nonterminals.push(Nonterminal { name: name.to_string(), productions: Vec::new() });
        self.nt_index.insert(name.to_string(), id);
        id
    }

    fn add_production(&mut self, lhs: NonterminalId, rhs: Vec<Symbol>) {
        let dup = self.nonterminals[lhs.index()]
            .productions
            .iter()
            .any(|&p| self.productions[p.index()].rhs == rhs);
        if dup {
            return;
        }
        let id = ProductionId::from_index(self.productions.len());
        self.productions.push(Production { lhs, rhs });
        self.nonterminals[lhs.index()].productions.push(id);
    }

    /// Expands an EBNF expression into its list of alternative symbol sequences.
    fn expand(&mut self, e: &Expr) -> Result<Vec<Vec<Symbol>>, GrammarError> {
        Ok(match e {
            Expr::Name(n, pos) => vec![vec![self.name_symbol(n, *pos)?]],
            Expr::Literal(s, ci, _) => vec![vec![Symbol::T(self.literal_terminal(s, *ci))]],
            Expr::Regex(r, f, _) => vec![vec![Symbol::T(self.regex_terminal(r, f))]],
            Expr::Seq(items) => {
                let mut acc: Vec<Vec<Symbol>> = vec![vec![]];
                for it in items {
                    acc = concat(&acc, &self.expand(it)?);
                    if acc.len() > MAX_ALTS {
                        return Err(GrammarError::Syntax {
                            pos: first_pos(e),
                            message: format!("expansion has more than {MAX_ALTS} alternatives; move optional parts into helper rules"),
                        });
                    }
                }
                acc
            }
            Expr::Alt(v) => {
                let mut out = Vec::new();
                for x in v {
                    push_new(&mut out, self.expand(x)?);
                }
                out
            }
            Expr::Opt(x) => {
                let mut out = vec![vec![]];
                push_new(&mut out, self.expand(x)?);
                out
            }
            Expr::Plus(x) => vec![vec![Symbol::N(self.plus(x)?)]],
            Expr::Star(x) => vec![vec![], vec![Symbol::N(self.plus(x)?)]],
            Expr::Repeat(x, lo, hi) => {
                let alts = self.expand(x)?;
                let mut out = Vec::new();
                for k in *lo..=*hi {
                    let mut acc: Vec<Vec<Symbol>> = vec![vec![]];
                    for _ in 0..k {
                        acc = concat(&acc, &alts);
                        if acc.len() > MAX_ALTS {
                            return Err(GrammarError::Syntax {
                                pos: first_pos(e),
                                message: "repetition expands too far".into(),
                            });
                        }
                    }
                    out.extend(acc);
                }
                out
            }
        })
    }

    /// The symbol a name stands for: a rule, a terminal definition, or a terminal
    /// made earlier under that name.
    fn name_symbol(&mut self, n: &str, pos: Pos) -> Result<Symbol, GrammarError> {
        let Some(d) = self.defs.get(n).copied() else {
            return match self.term_index.get(n) {
                Some(&t) => Ok(Symbol::T(t)),
                None => Err(GrammarError::Undefined { pos, name: n.to_string() }),
            };
        };
        Ok(if d.is_terminal {
            Symbol::T(self.named_terminal(n, pos)?)
        } else {
            Symbol::N(self.nonterminal(n))
        })
    }

    fn plus(&mut self, x: &Expr) -> Result<NonterminalId, GrammarError> {
        let alts = self.expand(x)?;
        if let Some(&n) = self.plus_cache.get(&alts) {
            return Ok(n);
        }
        let name = format!("__plus_{}", self.plus_cache.len());
        let n = self.nonterminal(&name);
        self.plus_cache.insert(alts.clone(), n);
        for a in &alts {
            self.add_production(n, a.clone());
            let mut rec = vec![Symbol::N(n)];
            rec.extend_from_slice(a);
            self.add_production(n, rec);
        }
        Ok(n)
    }

    fn build(mut self, start: &str) -> Result<Grammar, GrammarError> {
        // Ignored terminals.
        for e in &self.ast.ignore {
            let t = match e {
                Expr::Name(n, pos) => self.named_terminal(n, *pos)?,
                Expr::Literal(s, ci, _) => self.literal_terminal(s, *ci),
                Expr::Regex(r, f, _) => self.regex_terminal(r, f),
                other => {
                    return Err(GrammarError::Syntax {
                        pos: first_pos(other),
                        message: "%ignore takes one terminal, literal or regex".into(),
                    })
                }
            };
            self.terminals[t.index()].ignored = true;
        }
        let start_def = self
            .defs
            .get(start)
            .copied()
            .filter(|d| !d.is_terminal)
            .ok_or_else(|| GrammarError::NoStart(start.to_string()))?;
        let start_id = self.nonterminal(&start_def.name);
        let rules: Vec<&Definition> = self.ast.defs.iter().filter(|d| !d.is_terminal).collect();
        for d in &rules {
            self.nonterminal(&d.name);
        }
        for d in rules {
            let lhs = self.nt_index[&d.name];
            for alt in self.expand(&d.expr)? {
                self.add_production(lhs, alt);
            }
        }
        // Terminal regexes must not match the empty string.
        for t in &self.terminals {
            if let Some(p) = &t.pattern {
                let re = regex_automata::meta::Regex::new(&format!("^(?:{p})$")).map_err(|e| {
                    GrammarError::BadTerminal { name: t.name.clone(), message: e.to_string() }
                })?;
                if re.is_match("") {
                    return Err(GrammarError::BadTerminal {
                        name: t.name.clone(),
                        message: "matches the empty string; a lexer token must consume text".into(),
                    });
                }
            }
        }
        if self.terminals.len() > TermSet::CAPACITY {
            return Err(GrammarError::TooManyTerminals {
                count: self.terminals.len(),
                max: TermSet::CAPACITY,
            });
        }
        Ok(Grammar {
            terminals: self.terminals,
            nonterminals: self.nonterminals,
            productions: self.productions,
            start: start_id,
        })
    }
}

/// The most alternatives one expression may expand to.
const MAX_ALTS: usize = 4096;

/// Every sequence of `acc` followed by every one of `alts`.
fn concat(acc: &[Vec<Symbol>], alts: &[Vec<Symbol>]) -> Vec<Vec<Symbol>> {
    let mut next = Vec::with_capacity(acc.len() * alts.len());
    for a in acc {
        for b in alts {
            let mut v = a.clone();
            v.extend_from_slice(b);
            next.push(v);
        }
    }
    next
}

/// Appends the alternatives `out` does not have yet, in order.
fn push_new(out: &mut Vec<Vec<Symbol>>, alts: Vec<Vec<Symbol>>) {
    for a in alts {
        if !out.contains(&a) {
            out.push(a);
        }
    }
}

fn first_pos(e: &Expr) -> Pos {
    match e {
        Expr::Name(_, p) | Expr::Literal(_, _, p) | Expr::Regex(_, _, p) => *p,
        Expr::Seq(v) | Expr::Alt(v) => v.first().map(first_pos).unwrap_or(Pos { line: 0, col: 0 }),
        Expr::Opt(x) | Expr::Star(x) | Expr::Plus(x) | Expr::Repeat(x, _, _) => first_pos(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_more_terminals_than_a_termset_holds() {
        let words = |n: usize| (0..n).map(|i| format!("\"w{i}\"")).collect::<Vec<_>>().join(" | ");
        // $END plus 255 literals: the most a grammar may have.
        assert!(Grammar::parse(&format!("start: {}\n", words(TermSet::CAPACITY - 1))).is_ok());
        let e = Grammar::parse(&format!("start: {}\n", words(TermSet::CAPACITY))).unwrap_err();
        assert!(matches!(e, GrammarError::TooManyTerminals { count: 257, max: 256 }), "{e}");
    }

    #[test]
    fn expands_ebnf() {
        let g = Grammar::parse("start: a (\",\" a)* [\";\"]\na: NAME | NUMBER\nNAME: /[a-z]+/\nNUMBER: DIGIT+\nDIGIT: \"0\"..\"9\"\n%ignore \" \"\n").unwrap();
        let start = &g.nonterminals[g.start.index()];
        assert_eq!(start.productions.len(), 4); // (absent|plus) x (absent|";")
        assert!(g.terminal("NUMBER").is_some());
        assert!(g.terminal("DIGIT").is_none(), "helper terminals are not lexed");
        assert!(g.terminals[g.terminal("\" \"").unwrap().index()].ignored);
    }

    #[test]
    fn reports_undefined_and_empty() {
        let e = Grammar::parse("start: foo\n").unwrap_err();
        assert_eq!(e, GrammarError::Undefined { pos: Pos { line: 1, col: 8 }, name: "foo".into() });
        let e = Grammar::parse("start: A\nA: /x*/\n").unwrap_err();
        assert!(matches!(e, GrammarError::BadTerminal { ref name, .. } if name == "A"));
        let e = Grammar::parse("start: A\nA: /x(/\n").unwrap_err();
        assert!(matches!(e, GrammarError::BadTerminal { .. }));
        assert_eq!(
            Grammar::parse("s: \"x\"\n").unwrap_err(),
            GrammarError::NoStart("start".into())
        );
    }
}
