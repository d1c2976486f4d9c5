//! Shared set-up of the corpus tests: the SmolLM2 vocabulary and tokenizer, and a
//! fixed sample of CPython files.

#![allow(dead_code)]

pub mod finish;
pub mod masks;

use std::sync::Arc;

use espalier_constraint::{GrammarConstraint, MaskKit, MaskStore, Strategy, TokTrie, Vocab};
use espalier_model::{Gguf, Tokenizer};

/// The model file the set-up step fetched.
pub const MODEL: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/models/SmolLM2-135M-Instruct.Q4_1.gguf");

/// The CPython standard library (Debian's python3.11).
pub const CPYTHON: &str = "/usr/lib/python3.11";

/// The tokenizer, the vocabulary built from its raw token bytes, and the trie.
pub fn smollm2() -> (Tokenizer, Vocab, Arc<TokTrie>) {
    let gguf = Gguf::open(MODEL).unwrap_or_else(|e| {
        panic!("{MODEL}: {e} (run scripts/fetch-model.sh to put the model there)")
    });
    let tok = Tokenizer::from_gguf(&gguf).expect("SmolLM2 tokenizer");
    let vocab = Vocab::new(tok.all_token_bytes().to_vec(), &tok.special_ids(), tok.eos_id());
    let trie = Arc::new(TokTrie::new(&vocab));
    (tok, vocab, trie)
}

/// A fixed sample of CPython files (sorted list, every `stride`-th file from
/// `first`), with their text; files that are not UTF-8 are skipped.
pub fn cpython_sample(stride: usize, first: usize, max_bytes: usize) -> Vec<(String, String)> {
    espalier_testkit::require(
        format!("{CPYTHON}/test/test_grammar.py"),
        "the CPython corpus (libpython3.11-testsuite)",
        None,
    );
    let skip = ["site-packages", "dist-packages", "__pycache__", "lib2to3"];
    every_nth(espalier_testkit::files_under(CPYTHON, "py", &skip), stride, first, max_bytes)
}

/// Every `stride`-th of `files` from `first`, with its text, skipping empty files and
/// those over `max_bytes`.
fn every_nth(
    files: Vec<std::path::PathBuf>,
    stride: usize,
    first: usize,
    max_bytes: usize,
) -> Vec<(String, String)> {
    files
        .into_iter()
        .skip(first)
        .step_by(stride.max(1))
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            (text.len() <= max_bytes && !text.is_empty()).then(|| (p.display().to_string(), text))
        })
        .collect()
}

/// A grammar language of the corpus suites: its grammar, its standard-library sample
/// and its SynCode store. The suites that check every grammar language take one of
/// [`LANGS`] (the grammar crate's languages: Python and Go).
pub struct GrammarLang {
    /// The name the failure messages and the printed figures start with.
    pub name: &'static str,
    /// The constraint's kind (`python-lr`).
    pub kind: &'static str,
    /// The compiled grammar.
    language: fn() -> Result<Arc<espalier_grammar::Language>, espalier_grammar::GrammarError>,
    /// The standard-library sample: (stride, first, max_bytes) -> (path, text).
    sample: fn(usize, usize, usize) -> Vec<(String, String)>,
}

/// Python 3.11 over CPython's standard library.
pub const PYTHON: GrammarLang = GrammarLang {
    name: "python",
    kind: "python-lr",
    language: espalier_grammar::python,
    sample: cpython_sample,
};

/// Go 1.19 over Go's standard library.
pub const GO: GrammarLang =
    GrammarLang { name: "go", kind: "go-lr", language: espalier_grammar::go, sample: go_sample };

/// Every grammar language.
pub const LANGS: [&GrammarLang; 2] = [&PYTHON, &GO];

impl GrammarLang {
    /// The compiled grammar.
    pub fn language(&self) -> Arc<espalier_grammar::Language> {
        (self.language)()
            .unwrap_or_else(|e| panic!("the {} grammar does not compile: {e}", self.name))
    }

    /// A fixed sample of standard-library files (sorted, every `stride`-th from
    /// `first`, at most `max_bytes` each), with their text.
    pub fn sample(&self, stride: usize, first: usize, max_bytes: usize) -> Vec<(String, String)> {
        (self.sample)(stride, first, max_bytes)
    }

    /// The language's kit over `trie` (built now: summaries, layer data, start mask).
    pub fn kit(&self, trie: &Arc<TokTrie>) -> MaskKit {
        MaskKit::new(self.language(), trie.clone())
    }

    /// The constraint from `kit` (this language's, [`Self::kit`]); `syncode` gets the
    /// store.
    pub fn constraint(
        &self,
        kit: &MaskKit,
        strategy: Strategy,
        store: Option<&Arc<MaskStore>>,
    ) -> GrammarConstraint {
        let c = GrammarConstraint::new(kit, strategy, self.kind);
        match store {
            Some(s) => c.with_store(s.clone()),
            None => c,
        }
    }

    /// The SynCode store for this language x SmolLM2, cached under the test target
    /// directory (built on the first run, loaded afterwards).
    pub fn store(&self, vocab: &Vocab) -> Arc<MaskStore> {
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("{}-smollm2.store", self.name));
        let t = std::time::Instant::now();
        let store = MaskStore::load_or_build(&self.language(), vocab, &path).expect("mask store");
        let (rows, entries) = store.stats();
        eprintln!(
            "{} mask store: {rows} rows, {entries} entries, {} bytes, ready in {:?} ({})",
            self.name,
            store.memory_bytes(),
            t.elapsed(),
            path.display()
        );
        Arc::new(store)
    }

    /// Whether the grammar accepts `text` whole.
    pub fn accepts(&self, text: &str) -> bool {
        let mut r = self.language().recognizer();
        r.push_bytes(text.as_bytes()).is_ok() && r.is_complete()
    }
}

/// `n` distinct non-special token ids drawn by `rng` (a partial Fisher-Yates shuffle):
/// the fixed random sample the brute-force oracles run on.
pub fn token_sample(vocab: &Vocab, rng: &mut Rng, n: usize) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..vocab.len() as u32).filter(|&id| !vocab.is_special(id)).collect();
    for i in 0..n {
        let j = i + rng.below(ids.len() - i);
        ids.swap(i, j);
    }
    ids.truncate(n);
    ids
}

/// A random middle `a..b` of `text` for a fill-in-the-middle cut: `a` drawn below
/// `start_below`, then at most `len_below` bytes more, both moved onto character
/// boundaries (`a` back, `b` on).
pub fn fim_cut(text: &str, rng: &mut Rng, start_below: usize, len_below: usize) -> (usize, usize) {
    let mut a = rng.below(start_below);
    while !text.is_char_boundary(a) {
        a -= 1;
    }
    let mut b = (a + 1 + rng.below(len_below)).min(text.len());
    while !text.is_char_boundary(b) {
        b += 1;
    }
    (a, b)
}

/// The seeded generator of the randomized suites (SplitMix64; `Rng(state)`).
pub use espalier_constraint::Rng;

/// Whether the slow suites should run (`ESPALIER_SLOW=1`; the one gate shared by every
/// crate).
#[allow(unused_imports)] // not every test binary has a slow variant
pub use espalier_testkit::slow;

/// The Go 1.19 standard library (Debian's golang-go, see scripts/setup.sh).
pub const GO_SRC: &str = "/usr/lib/go-1.19/src";

/// A fixed sample of Go standard-library files (sorted, every `stride`-th from
/// `first`, testdata directories left out), with their text. A missing corpus fails
/// with the set-up command.
pub fn go_sample(stride: usize, first: usize, max_bytes: usize) -> Vec<(String, String)> {
    espalier_testkit::require(GO_SRC, "the Go 1.19 standard library (golang-go)", None);
    every_nth(espalier_testkit::files_under(GO_SRC, "go", &["testdata"]), stride, first, max_bytes)
}

/// Runs `check` on each case of a suite's per-language table, one case for each of
/// [`LANGS`] ([`espalier_testkit::each_language`]: every language runs, the failed ones
/// are named, a language without a case fails).
pub fn each_lang<C>(cases: &[C], lang: impl Fn(&C) -> &GrammarLang, check: impl Fn(&C)) {
    let registered: Vec<&str> = LANGS.iter().map(|l| l.name).collect();
    espalier_testkit::each_language(&registered, cases, |c| lang(c).name, check);
}
