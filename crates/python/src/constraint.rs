//! `espalier.Constraint`: one generation's constraint (Python or Go with the exact or
//! SynCode masks, fill-in-the-middle between a prefix and a suffix, a Lark grammar of
//! the caller's, or sLua over a game API) driven by token ids:
//! `commit(token_id)`, `fill_mask(buffer)` / `mask_logits(buffer)` into caller-owned
//! memory, `is_complete()`, `inspect()`, `clone()`. Every error is a subclass of
//! `espalier.EspalierError`; a refused commit leaves the constraint as it was.

use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use espalier_constraint::{
    Commit, Constraint as _, FimConstraint, GrammarConstraint, MaskKit, Strategy, TokenSet, Vocab,
};
use espalier_decode::{Lang, LangConstraint, Mode, Unconstrained};
use espalier_grammar::lr_table::TableKind;
use espalier_grammar::quotient::{FimError, Part};
use espalier_grammar::{Language, LanguageOptions};
use espalier_slua::{Api, Env, SluaConstraint};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffer::{Element, WritableBuffer};
use crate::errors::{
    BufferError, EspalierError, FinishedError, GrammarError, PromptRejectedError, TokenIdError,
    TokenRejectedError,
};
use crate::owner::Owner;
use crate::vocabulary::Vocabulary;

/// A constraint on one sequence. Any thread may use it, one call at a time, except an
/// sLua one, which stays on the thread that built it (see `owner.rs`).
#[pyclass(module = "espalier")]
pub struct Constraint {
    /// Which threads may reach `inner`.
    owner: Owner,
    inner: LangConstraint,
    vocab: Arc<Vocab>,
    mask: TokenSet,
    /// Scratch set for the finishing mask (the wrap-up's).
    finish: TokenSet,
    /// The bytes committed after the prompt.
    text: Vec<u8>,
    finished: bool,
    language: &'static str,
}

/// Parses a strategy name of the grammar constraints.
fn strategy(name: &str) -> PyResult<Strategy> {
    match name {
        "exact" => Ok(Strategy::Exact),
        "syncode" => Ok(Strategy::Syncode),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "unknown strategy {name:?}: expected \"exact\" or \"syncode\""
        ))),
    }
}

/// A `PromptRejectedError` with `message`, whose `part` attribute names the refused
/// input (`prompt`, `prefix` or `suffix`) and `offset` the byte offset in it.
fn rejected(message: String, part: &str, offset: usize) -> PyErr {
    let err = PromptRejectedError::new_err(message);
    Python::with_gil(|py| {
        let value = err.value(py);
        // Setting attributes on a fresh exception instance cannot fail in practice; if
        // it did, the message still names the offset.
        let _ = value.setattr("part", part);
        let _ = value.setattr("offset", offset);
    });
    err
}

/// The Python exception for a fill-in-the-middle request that cannot be served.
fn fim_error(e: FimError) -> PyErr {
    let (part, offset) = match &e {
        FimError::NotUtf8 { part, offset, .. } => (*part, *offset),
        FimError::PrefixNotViable { error } => (Part::Prefix, error.offset),
        FimError::Unjoinable { offset, .. } => (Part::Suffix, *offset),
    };
    rejected(format!("fill-in-the-middle: {e}"), &part.to_string(), offset)
}

/// The bytes of a `str` (as UTF-8), `bytes` or `bytearray`.
fn text_bytes(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    use pyo3::types::{PyByteArray, PyString};
    if let Ok(s) = obj.downcast::<PyString>() {
        Ok(s.to_cow()?.as_bytes().to_vec())
    } else if let Ok(b) = obj.downcast::<PyBytes>() {
        Ok(b.as_bytes().to_vec())
    } else if let Ok(b) = obj.downcast::<PyByteArray>() {
        Ok(b.to_vec())
    } else {
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{what}: expected str, bytes or bytearray"
        )))
    }
}

impl Constraint {
    fn new(
        inner: LangConstraint,
        vocab: &Vocabulary,
        language: &'static str,
        prompt: &str,
    ) -> PyResult<Self> {
        let mut c = Constraint {
            owner: Owner::here(matches!(inner, LangConstraint::Slua(_))),
            inner,
            vocab: vocab.vocab.clone(),
            mask: TokenSet::empty(vocab.vocab.len()),
            finish: TokenSet::empty(vocab.vocab.len()),
            text: Vec::new(),
            finished: false,
            language,
        };
        if !prompt.is_empty() {
            c.inner.commit(prompt.as_bytes()).map_err(|r| {
                rejected(
                    format!(
                        "the prompt is not a valid {language} prefix: {r} (prompt byte {})",
                        r.offset
                    ),
                    "prompt",
                    r.offset,
                )
            })?;
        }
        Ok(c)
    }

    fn check_live(&self, what: &str) -> PyResult<()> {
        self.owner.check(what)?;
        if self.finished {
            Err(FinishedError::new_err(format!(
                "{what}: the constraint already committed the end-of-sequence token"
            )))
        } else {
            Ok(())
        }
    }

    /// Commits raw bytes (never EOS).
    fn commit_raw(&mut self, bytes: &[u8], what: impl FnOnce() -> String) -> PyResult<()> {
        match self.inner.commit(bytes) {
            Ok(Commit::Accepted) => {
                self.text.extend_from_slice(bytes);
                Ok(())
            }
            Ok(Commit::Heal { accepted }) => Err(EspalierError::new_err(format!(
                "{}: the {} constraint asked for token healing after {accepted} bytes, which a logits \
                 processor cannot do",
                what(),
                self.language
            ))),
            Err(r) => Err(TokenRejectedError::new_err(format!("{} is not allowed here: {r}", what()))),
        }
    }

    /// A constraint of the registry's grammar language `name` (see `Constraint.python`);
    /// with `names`, the `names` mode (the exact mask intersected with the names layer).
    fn registered(
        vocab: &Vocabulary,
        name: &str,
        strategy: &str,
        prompt: &str,
        names: bool,
    ) -> PyResult<Self> {
        let mode = match (self::strategy(strategy)?, names) {
            (Strategy::Syncode, true) => return Err(pyo3::exceptions::PyValueError::new_err(
                "names=True narrows the exact mask: it takes strategy=\"exact\", not \"syncode\"",
            )),
            (_, true) => Mode::Names,
            (Strategy::Syncode, false) => Mode::Syncode,
            _ => Mode::Mask,
        };
        let lang = Lang::from_name(name).map_err(|e| GrammarError::new_err(e.to_string()))?;
        lang.check_mode(mode).map_err(|e| {
            GrammarError::new_err(format!(
                "names=True: {e} (the names layer follows Python's scoping rules: Python only)"
            ))
        })?;
        let kit = vocab.grammar_kit(lang, mode == Mode::Syncode)?;
        // The kit feeds the prompt itself; refusals keep their offset.
        let inner = kit.constraint(mode, "").map_err(|e| GrammarError::new_err(e.to_string()))?;
        Constraint::new(inner, vocab, lang.name(), prompt)
    }

    /// Computes the mask of the current state into `self.mask`.
    /// The GIL is released meanwhile, so other Python threads run while a mask is
    /// computed (a server's other requests, tokenization).
    /// With `wrap_up`, the mask is then narrowed to the finishing mask (the tokens that
    /// lead towards the shortest completion, the decoder's wrap-up), unless the
    /// constraint has none or the intersection is empty (the wrap-up never causes a
    /// dead end); returns whether it narrowed.
    fn compute_mask(&mut self, py: Python<'_>, wrap_up: bool) -> PyResult<bool> {
        self.check_live("fill_mask")?;
        let job = WithoutGil((&mut self.inner, &*self.vocab, &mut self.mask, &mut self.finish));
        Ok(py.allow_threads(move || {
            let (inner, vocab, mask, finish) = job.into_inner();
            inner.fill_mask(vocab, mask);
            if !wrap_up || !inner.fill_finishing_mask(vocab, finish) {
                return false;
            }
            finish.intersect_with(mask);
            if finish.is_empty() {
                return false;
            }
            std::mem::swap(mask, finish);
            true
        }))
    }
}

/// Borrows taken into `Python::allow_threads`, which asks for `Send` data because
/// other threads may run meanwhile. SAFETY: the closure runs on the calling thread,
/// and nothing it borrows can be reached from another thread in the meantime:
/// `self` is mutably borrowed through PyO3's borrow flag (any other access raises),
/// an sLua constraint is used only on the thread that built it (`Owner::check`, so the
/// `Rc`s it shares with its clones are only ever touched on this thread, which is busy
/// here), and the vocabulary is immutable behind an `Arc`.
struct WithoutGil<T>(T);

unsafe impl<T> Send for WithoutGil<T> {}

impl<T> WithoutGil<T> {
    /// The borrows (a method, so the closure captures the whole wrapper, not its
    /// non-`Send` fields).
    fn into_inner(self) -> T {
        self.0
    }
}

#[pymethods]
impl Constraint {
    /// Python 3 (Espalier's Python 3.11 grammar with its indentation layer), with the
    /// `exact` masks (sound and complete) or `syncode` (SynCode's mask store: may allow
    /// a token the parser then refuses, raising `TokenRejectedError` at commit).
    /// `prompt` is code already written before the cursor. With `names=True` (the
    /// `names` mode, exact strategy only) the mask is also narrowed by the names layer:
    /// a name the text reads must be bound by Python's scoping rules (a parameter, an
    /// assignment, an import, a builtin...), so the program raises no `NameError`;
    /// `inspect()["names_in_scope"]` lists the names in scope (a list; `None` without
    /// the layer).
    #[staticmethod]
    #[pyo3(signature = (vocab, strategy = "exact", prompt = "", names = false))]
    fn python(vocab: &Vocabulary, strategy: &str, prompt: &str, names: bool) -> PyResult<Self> {
        Constraint::registered(vocab, "python", strategy, prompt, names)
    }

    /// Go 1.19 (Espalier's Go grammar, generics included, with automatic semicolons),
    /// a whole source file from its `package` clause; strategies as for
    /// [`Constraint::python`]. `names=True` raises `GrammarError`: the names layer
    /// follows Python's scoping rules only.
    #[staticmethod]
    #[pyo3(signature = (vocab, strategy = "exact", prompt = "", names = false))]
    fn go(vocab: &Vocabulary, strategy: &str, prompt: &str, names: bool) -> PyResult<Self> {
        Constraint::registered(vocab, "go", strategy, prompt, names)
    }

    /// A grammar of the caller's in Espalier's Lark-style format (rules, terminals as
    /// regexes or literals, `%ignore`...), without an indentation layer. `start` is the
    /// start rule. `table` is the LR construction: `lr1` (canonical LR(1), the
    /// default, as the registry's Python and Go use: its error entries are exact, so
    /// the acceptable terminals after a lexeme are one table row, which keeps masks
    /// cheap), or `pager` / `lalr` (smaller tables for big grammars; the acceptable
    /// terminals are then found by simulating reductions, several times slower per
    /// mask).
    #[staticmethod]
    #[pyo3(signature = (vocab, grammar, strategy = "exact", prompt = "", start = "start", table = "lr1"))]
    fn grammar(
        vocab: &Vocabulary,
        grammar: &str,
        strategy: &str,
        prompt: &str,
        start: &str,
        table: &str,
    ) -> PyResult<Self> {
        let strategy = self::strategy(strategy)?;
        let table = match table {
            "lr1" => TableKind::Lr1,
            "pager" => TableKind::Pager,
            "lalr" => TableKind::Lalr1,
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "unknown LR table kind {table:?}: expected \"lr1\", \"pager\" or \"lalr\""
                )))
            }
        };
        let options =
            LanguageOptions { start: start.to_string(), table, ..LanguageOptions::default() };
        let lang: Arc<Language> = Language::compile(grammar, &options)
            .map_err(|e| GrammarError::new_err(format!("the grammar does not compile: {e}")))?;
        let mut kit = MaskKit::new(lang.clone(), vocab.trie());
        if strategy == Strategy::Syncode {
            kit = kit
                .with_store(Arc::new(espalier_constraint::MaskStore::build(&lang, &vocab.vocab)));
        }
        let c = GrammarConstraint::new(&kit, strategy, "grammar-lr");
        Constraint::new(LangConstraint::Grammar(Box::new(c)), vocab, "grammar", prompt)
    }

    /// Fill-in-the-middle: the text generated is the middle between `prefix` (the
    /// code before the cursor) and `suffix` (the code after it) of a `language`
    /// program (the registry's grammar language; Python). A token is allowed iff
    /// some continuation of the middle joins the suffix; end-of-sequence iff
    /// `prefix + middle + suffix` is a complete program. A prefix that is not the
    /// start of a program, a suffix no middle can join, or non-UTF-8 text raises
    /// `PromptRejectedError` naming the byte (`part`: `prefix` / `suffix`, `offset`).
    #[staticmethod]
    #[pyo3(signature = (vocab, prefix, suffix, language = "python"))]
    fn fim(
        vocab: &Vocabulary,
        prefix: &Bound<'_, PyAny>,
        suffix: &Bound<'_, PyAny>,
        language: &str,
    ) -> PyResult<Self> {
        let (prefix, suffix) = (text_bytes(prefix, "prefix")?, text_bytes(suffix, "suffix")?);
        let lang = Lang::from_name(language).map_err(|e| GrammarError::new_err(e.to_string()))?;
        if lang.name() != "python" {
            return Err(GrammarError::new_err(format!(
                "fill-in-the-middle is implemented for python only (its suffix analysis follows Python's \
                 indentation), not {}",
                lang.name()
            )));
        }
        let kit = vocab.grammar_kit(lang, false)?;
        let c = FimConstraint::new(kit.masks(), &prefix, &suffix).map_err(fim_error)?;
        Constraint::new(LangConstraint::Fim(Box::new(c)), vocab, lang.name(), "")
    }

    /// sLua scripts over a game API: `api` is the path of an API JSON file (such as
    /// `static/api/dungeon.json`; `None`: the built-in dungeon API), `kind` is
    /// `effect`, `talent` or `any`, `effects` the names of effects already written.
    #[staticmethod]
    #[pyo3(signature = (vocab, api = None, kind = "any", effects = Vec::new(), prompt = ""))]
    fn slua(
        vocab: &Vocabulary,
        api: Option<PathBuf>,
        kind: &str,
        effects: Vec<String>,
        prompt: &str,
    ) -> PyResult<Self> {
        let api = match api {
            None => Api::dungeon(),
            Some(path) => {
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    GrammarError::new_err(format!(
                        "cannot read the API file {}: {e}",
                        path.display()
                    ))
                })?;
                Api::from_json(&text).map_err(|e| {
                    GrammarError::new_err(format!(
                        "the API file {} is not valid: {e}",
                        path.display()
                    ))
                })?
            }
        };
        let env = Rc::new(Env::new(api, effects));
        let c = match kind {
            "effect" | "talent" => SluaConstraint::for_kind(env, kind),
            "any" => SluaConstraint::new(env),
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "unknown sLua script kind {kind:?}: expected \"effect\", \"talent\" or \"any\""
                )))
            }
        };
        let inner = LangConstraint::Slua(Box::new(c.with_trie(vocab.trie())));
        Constraint::new(inner, vocab, "slua", prompt)
    }

    /// Commits the sampled token `token_id`. The end-of-sequence token is accepted only
    /// when the text is complete, and finishes the constraint.
    fn commit(&mut self, token_id: i64) -> PyResult<()> {
        self.check_live("commit")?;
        let n = self.vocab.len();
        if token_id < 0 || token_id as usize >= n {
            return Err(TokenIdError::new_err(format!(
                "token id {token_id} is out of the vocabulary's range 0..{n}"
            )));
        }
        let id = token_id as u32;
        if id == self.vocab.eos() {
            if self.inner.is_complete() {
                self.finished = true;
                return Ok(());
            }
            return Err(TokenRejectedError::new_err(format!(
                "end-of-sequence (token {id}) is not allowed here: the {} text is not complete",
                self.language
            )));
        }
        if self.vocab.is_special(id) {
            return Err(TokenRejectedError::new_err(format!(
                "token {id} {:?} is a special token, which no constraint allows",
                String::from_utf8_lossy(self.vocab.bytes(id))
            )));
        }
        let vocab = self.vocab.clone();
        let bytes = vocab.bytes(id);
        self.commit_raw(bytes, || format!("token {id} {:?}", String::from_utf8_lossy(bytes)))
    }

    /// Commits raw text bytes (forced text, not a sampled token).
    fn commit_bytes(&mut self, data: &[u8]) -> PyResult<()> {
        self.check_live("commit_bytes")?;
        self.commit_raw(data, || format!("bytes {:?}", String::from_utf8_lossy(data)))
    }

    /// Writes the mask of allowed next tokens into `buffer` (a writable bool / uint8 /
    /// int8 buffer of exactly the vocabulary's size, contiguous or a one-dimensional
    /// strided view): 1 allowed, 0 not; with `invert=True` the opposite (1 where the
    /// token is disallowed: what `torch.Tensor.masked_fill_` takes). With
    /// `wrap_up=True` the mask is narrowed to the finishing mask (the tokens that lead
    /// towards the shortest completion; see `espalier.WrapUp`) where the constraint
    /// has one and the intersection is not empty. Returns whether it narrowed.
    #[pyo3(signature = (buffer, invert = false, wrap_up = false))]
    fn fill_mask(
        &mut self,
        buffer: &Bound<'_, PyAny>,
        invert: bool,
        wrap_up: bool,
    ) -> PyResult<bool> {
        let mut out = WritableBuffer::get(buffer, Element::Byte, self.vocab.len(), "fill_mask")?;
        let narrowed = self.compute_mask(buffer.py(), wrap_up)?;
        out.write_bits(self.mask.words(), invert);
        Ok(narrowed)
    }

    /// Writes the mask as a packed bitmask into `bitmask` (a writable, contiguous int32
    /// / uint32 buffer of `(vocab_size + 31) // 32` words): token `i` allowed iff bit
    /// `i % 32` of word `i // 32` is set; the bits past the vocabulary are 0. The
    /// format of llguidance's and XGrammar's bitmasks, so their appliers (NumPy, torch,
    /// GPU kernels) take it as it is. `wrap_up` and the result as for `fill_mask`.
    #[pyo3(signature = (bitmask, wrap_up = false))]
    fn fill_bitmask(&mut self, bitmask: &Bound<'_, PyAny>, wrap_up: bool) -> PyResult<bool> {
        let words = self.vocab.len().div_ceil(32);
        let mut out = WritableBuffer::get(
            bitmask,
            Element::Word32,
            words,
            "fill_bitmask (words of 32 tokens)",
        )?;
        let narrowed = self.compute_mask(bitmask.py(), wrap_up)?;
        if !out.write_words32(self.mask.words()) {
            return Err(BufferError::new_err(
                "fill_bitmask: needs a contiguous, aligned int32 buffer",
            ));
        }
        Ok(narrowed)
    }

    /// Sets every disallowed token's logit to -inf in `logits` (a writable float32
    /// buffer of the vocabulary's size, contiguous or a one-dimensional strided view),
    /// in place. `wrap_up` and the result as for `fill_mask`.
    #[pyo3(signature = (logits, wrap_up = false))]
    fn mask_logits(&mut self, logits: &Bound<'_, PyAny>, wrap_up: bool) -> PyResult<bool> {
        let mut out = WritableBuffer::get(logits, Element::F32, self.vocab.len(), "mask_logits")?;
        let narrowed = self.compute_mask(logits.py(), wrap_up)?;
        if !out.mask_f32(self.mask.words()) {
            return Err(BufferError::new_err("mask_logits: the float32 buffer is misaligned"));
        }
        Ok(narrowed)
    }

    /// The allowed next token ids, ascending (allocates: for tests and debugging);
    /// `wrap_up` as for `fill_mask`.
    #[pyo3(signature = (wrap_up = false))]
    fn allowed_tokens(&mut self, py: Python<'_>, wrap_up: bool) -> PyResult<Vec<usize>> {
        self.compute_mask(py, wrap_up)?;
        Ok(self.mask.iter().collect())
    }

    /// An upper bound on the tokens the finishing mask needs from here to a complete
    /// program (`0` once complete), or `None` when the constraint cannot tell (no
    /// finishing mask, or no plan found). A bound of at most `enough` is all a caller
    /// needs: a looser one found cheaply may come back when it is within `enough`.
    /// The processors start their wrap-up when the budget left comes down to it plus
    /// `espalier.WRAP_UP_MARGIN`.
    fn finishing_distance(&mut self, py: Python<'_>, enough: usize) -> PyResult<Option<usize>> {
        self.check_live("finishing_distance")?;
        let job = WithoutGil((&mut self.inner, &*self.vocab));
        Ok(py.allow_threads(move || {
            let (inner, vocab) = job.into_inner();
            inner.finishing_distance(vocab, enough)
        }))
    }

    /// Whether the text so far is complete (end-of-sequence may come next).
    fn is_complete(&self) -> PyResult<bool> {
        self.owner.check("is_complete")?;
        Ok(self.inner.is_complete())
    }

    /// Whether the end-of-sequence token was committed (any further use raises).
    #[getter]
    fn finished(&self) -> bool {
        self.finished
    }

    /// The bytes committed after the prompt.
    #[getter]
    fn text<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.text)
    }

    /// The vocabulary's size (the width of masks and logits rows).
    #[getter]
    fn vocab_size(&self) -> usize {
        self.vocab.len()
    }

    /// The vocabulary's end-of-sequence token id.
    #[getter]
    fn eos_token_id(&self) -> u32 {
        self.vocab.eos()
    }

    /// The language: `python`, `go`, `grammar` or `slua`.
    #[getter]
    fn language(&self) -> &'static str {
        self.language
    }

    /// What the visualizer draws, as a dict: `kind`, `tree` (sLua), `regex`, `stack`,
    /// `accept_sequences`, `remainder`.
    fn inspect<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.owner.check("inspect")?;
        let json = serde_json::to_string(&self.inner.inspect())
            .map_err(|e| EspalierError::new_err(format!("inspect: {e}")))?;
        py.import("json")?.call_method1("loads", (json,))
    }

    /// An independent copy (the same state; committing to one leaves the other), owned
    /// by the calling thread.
    fn clone(&self) -> PyResult<Self> {
        self.owner.check("clone")?;
        Ok(Constraint {
            owner: Owner::here(matches!(self.inner, LangConstraint::Slua(_))),
            inner: self.inner.clone(),
            vocab: self.vocab.clone(),
            mask: self.mask.clone(),
            finish: TokenSet::empty(self.vocab.len()),
            text: self.text.clone(),
            finished: self.finished,
            language: self.language,
        })
    }

    fn __copy__(&self) -> PyResult<Self> {
        self.clone()
    }

    fn __repr__(&self) -> String {
        let complete = if self.owner.allows_here() {
            self.inner.is_complete().to_string()
        } else {
            "(another thread's)".to_string()
        };
        format!(
            "Constraint(language={:?}, committed={} bytes, complete={complete}, finished={})",
            self.language,
            self.text.len(),
            self.finished
        )
    }
}

// SAFETY: the Python, Go, grammar and fill-in-the-middle constraints are `Send + Sync`
// (asserted in `owner.rs`); the sLua one holds `Rc`s, reached only on the thread that
// built it: every method that touches `inner` checks `owner` first, and `Drop` on
// another thread leaks the tree instead of dropping it. The other fields are
// `Send + Sync` data.
unsafe impl Send for Constraint {}
unsafe impl Sync for Constraint {}

impl Drop for Constraint {
    fn drop(&mut self) {
        if !self.owner.allows_here() {
            let inner = std::mem::replace(&mut self.inner, LangConstraint::None(Unconstrained));
            std::mem::forget(inner);
        }
    }
}
