//! The language registry: every language generation can be constrained to is one
//! module of this directory implementing three facets: [`LangSpec`], the core a
//! constraint needs (its name, the modes it supports, its grammar, kit and constraint
//! builder); [`Prompting`] (its prompts and stop rules); [`Evaluation`] (its file
//! checker, its translation and its benchmarks; the lab holds their oracles). Each
//! is registered in the `registry!` list below. The CLI's
//! `--lang` values and help, the web app's language menu and the evaluation harness
//! all read the registry through [`Lang`]; nothing outside this directory matches on
//! a language's name.
//!
//! Adding a language: write `languages/NAME.rs` with a `pub static LANGUAGE` of a
//! type implementing the three facets, then add `NAME` to the `registry!` line. A
//! grammar language is data, a [`GrammarLanguage`] (its grammar gives it its kit,
//! constraints and `check` through the facets' defaults); a language with rules of its
//! own implements the facets itself (`slua.rs`). A [`Lang`] dereferences to the
//! core facet; [`Lang::prompting`] and [`Lang::evaluation`] give the others.

use std::fmt;
use std::hash::{Hash, Hasher};

mod evaluation;
mod grammar_language;
mod prompting;
mod spec;

pub use evaluation::{Benchmark, BenchmarkFormat, CheckOptions, Checked, Evaluation};
pub use grammar_language::GrammarLanguage;
pub use prompting::{Framing, Prompting};
pub use spec::LangSpec;

/// A registered language: its facets, all views of one `LANGUAGE` static.
struct Registered {
    core: &'static dyn LangSpec,
    prompting: &'static dyn Prompting,
    evaluation: &'static dyn Evaluation,
}

/// Declares the language modules and the registry in one list.
macro_rules! registry {
    ($($m:ident),+ $(,)?) => {
        $(pub mod $m;)+
        /// Every registered language, in the order menus list them (the first is the
        /// web app's default).
        static REGISTRY: &[Registered] = &[$(Registered {
            core: &$m::LANGUAGE,
            prompting: &$m::LANGUAGE,
            evaluation: &$m::LANGUAGE,
        }),+];
    };
}

registry!(slua, python, go);

/// A registered language: a cheap, copyable handle on its [`LangSpec`] (which it
/// dereferences to). Equal when the names are; serialized as the name.
#[derive(Clone, Copy)]
pub struct Lang(&'static Registered);

impl Lang {
    /// Every registered language, in menu order.
    pub fn all() -> impl Iterator<Item = Lang> {
        REGISTRY.iter().map(Lang)
    }

    /// How it is prompted: framing, system message, fence, stop strings.
    pub fn prompting(self) -> &'static dyn Prompting {
        self.0.prompting
    }

    /// How its programs are checked, translated and benchmarked.
    pub fn evaluation(self) -> &'static dyn Evaluation {
        self.0.evaluation
    }

    /// The first language of the registry (the web app's default).
    pub fn first() -> Lang {
        // The registry! macro takes one language at least.
        Lang(&REGISTRY[0])
    }

    /// The language called `name` ([`LangSpec::name`]).
    pub fn from_name(name: &str) -> Result<Lang, UnknownLang> {
        Lang::all().find(|l| l.name() == name).ok_or_else(|| UnknownLang(name.to_string()))
    }

    /// The names of every language, e.g. for a command line's possible values.
    pub fn names() -> Vec<&'static str> {
        Lang::all().map(|l| l.name()).collect()
    }

    /// The language whose benchmark is called `name`, with that benchmark.
    pub fn benchmark(name: &str) -> Option<(Lang, &'static Benchmark)> {
        Lang::all().find_map(|l| {
            l.evaluation().benchmarks().iter().find(|b| b.name == name).map(|b| (l, b))
        })
    }

    /// Every benchmark name of every language.
    pub fn benchmark_names() -> Vec<&'static str> {
        Lang::all().flat_map(|l| l.evaluation().benchmarks().iter().map(|b| b.name)).collect()
    }
}

/// `a, b or c`.
pub fn or_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

impl std::ops::Deref for Lang {
    type Target = dyn LangSpec;

    fn deref(&self) -> &Self::Target {
        self.0.core
    }
}

impl PartialEq for Lang {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Lang {}

impl Hash for Lang {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state)
    }
}

impl fmt::Debug for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Lang({})", self.name())
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A language name that is not registered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown language {0:?}: expected {expected}", expected = or_list(&Lang::names()))]
pub struct UnknownLang(pub String);

impl std::str::FromStr for Lang {
    type Err = UnknownLang;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Lang::from_name(s)
    }
}

impl serde::Serialize for Lang {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Lang {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Lang::from_name(&name).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        let names = Lang::names();
        assert!(names.len() >= 2, "{names:?}");
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "{n} registered twice");
            let lang: Lang = n.parse().unwrap();
            assert_eq!(lang.name(), *n);
            let json = serde_json::to_string(&lang).unwrap();
            assert_eq!(json, format!("{n:?}"));
            assert_eq!(serde_json::from_str::<Lang>(&json).unwrap(), lang);
        }
        let err = "cobol".parse::<Lang>().unwrap_err().to_string();
        assert!(err.contains("\"cobol\"") && err.contains(&or_list(&names)), "{err}");
        assert!(serde_json::from_str::<Lang>("\"cobol\"").is_err());
    }

    #[test]
    fn every_language_supports_mode_none_and_a_constraining_mode() {
        for lang in Lang::all() {
            assert!(lang.modes().contains(&crate::Mode::None), "{lang}");
            assert!(lang.modes().iter().any(|m| *m != crate::Mode::None), "{lang}");
            assert!(!lang.label().is_empty() && !lang.prompting().fence().is_empty(), "{lang}");
        }
    }

    #[test]
    fn benchmarks_belong_to_one_language_each() {
        let names = Lang::benchmark_names();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "benchmark {n} registered twice");
            assert_eq!(Lang::benchmark(n).map(|(_, b)| b.name), Some(*n));
        }
        assert!(Lang::benchmark("nope").is_none());
    }

    #[test]
    fn or_lists_read_like_english() {
        assert_eq!(or_list(&["a"]), "a");
        assert_eq!(or_list(&["a", "b"]), "a or b");
        assert_eq!(or_list(&["a", "b", "c"]), "a, b or c");
    }
}
