//! [`GrammarLanguage`]: a language whose constraint is a grammar of espalier-grammar
//! (Python, Go), described by data: the values of its three facets and two functions
//! (its compiled grammar, its stop strings). The facets' defaults do the rest: the kit,
//! the constraints and `espalier check` come from the grammar. A language with rules
//! of its own (sLua: a tree of parsers, prompts built from the game API) implements
//! the facets itself.

use std::sync::Arc;

use super::{Benchmark, Evaluation, Framing, LangSpec, Prompting};
use crate::{LangError, Mode};

/// A grammar language as data, field by facet (see the module doc).
pub struct GrammarLanguage {
    // The core facet.
    /// [`LangSpec::name`].
    pub name: &'static str,
    /// [`LangSpec::label`].
    pub label: &'static str,
    /// [`LangSpec::modes`].
    pub modes: &'static [Mode],
    /// The compiled grammar, shared ([`LangSpec::grammar`]; its error becomes a
    /// [`LangError::Grammar`]).
    pub grammar: fn() -> Result<Arc<espalier_grammar::Language>, espalier_grammar::GrammarError>,
    /// [`LangSpec::has_finishing_mask`].
    pub has_finishing_mask: bool,
    /// [`LangSpec::fills_in_the_middle`].
    pub fills_in_the_middle: bool,

    // The prompting facet.
    /// [`Prompting::sample_request`].
    pub sample_request: &'static str,
    /// [`Prompting::fence`].
    pub fence: &'static str,
    /// [`Prompting::answer_start`].
    pub answer_start: &'static str,
    /// [`Prompting::stop_strings`].
    pub stop_strings: fn(Framing) -> Vec<String>,

    // The evaluation facet.
    /// [`Evaluation::check_renames`].
    pub check_renames: &'static [(&'static str, &'static str)],
    /// [`Evaluation::benchmarks`].
    pub benchmarks: &'static [Benchmark],
}

impl LangSpec for GrammarLanguage {
    fn name(&self) -> &'static str {
        self.name
    }

    fn label(&self) -> &'static str {
        self.label
    }

    fn modes(&self) -> &'static [Mode] {
        self.modes
    }

    fn grammar(&self) -> Option<Result<Arc<espalier_grammar::Language>, LangError>> {
        let compiled = (self.grammar)();
        Some(compiled.map_err(|e| LangError::Grammar { lang: self.name, message: e.to_string() }))
    }

    fn has_finishing_mask(&self) -> bool {
        self.has_finishing_mask
    }

    fn fills_in_the_middle(&self) -> bool {
        self.fills_in_the_middle
    }
}

impl Prompting for GrammarLanguage {
    fn sample_request(&self) -> &'static str {
        self.sample_request
    }

    fn fence(&self) -> &'static str {
        self.fence
    }

    fn answer_start(&self) -> &'static str {
        self.answer_start
    }

    fn stop_strings(&self, framing: Framing) -> Vec<String> {
        (self.stop_strings)(framing)
    }
}

/// `espalier check` of `lang` on a valid file `good` alone, then with an invalid file
/// `bad` (both `FILE.ext` in a scratch folder): the first passes without a word, the
/// second finds one invalid file, in one line, returned without the file's path
/// (`:LINE:COL: expected one of ...`).
#[cfg(test)]
pub(crate) fn check_report(lang: &dyn Evaluation, ext: &str, good: &str, bad: &str) -> String {
    let (good_file, bad_file) = (format!("good.{ext}"), format!("bad.{ext}"));
    let dir = espalier_testkit::ScratchDir::new(
        &format!("{}check", lang.name()),
        &[(&good_file, good), (&bad_file, bad)],
    );
    let (good, bad) = (dir.path(&good_file), dir.path(&bad_file));
    let (mut out, mut errors) = (Vec::new(), Vec::new());
    let check = |files: &[_], out: &mut Vec<u8>, errors: &mut Vec<u8>| {
        lang.check_files(files, &Default::default(), out, errors).unwrap()
    };
    assert!(check(std::slice::from_ref(&good), &mut out, &mut errors).all_valid());
    assert!(out.is_empty() && errors.is_empty(), "{}", String::from_utf8_lossy(&out));
    let found = check(&[good, bad.clone()], &mut out, &mut errors);
    assert_eq!((found.invalid, found.unreadable), (1, 0));
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let path = bad.display().to_string();
    text.strip_prefix(&path).unwrap_or_else(|| panic!("{text} names {path}")).to_string()
}

impl Evaluation for GrammarLanguage {
    fn check_renames(&self) -> &'static [(&'static str, &'static str)] {
        self.check_renames
    }

    fn benchmarks(&self) -> &'static [Benchmark] {
        self.benchmarks
    }
}
