//! sLua, the typed Lua subset of the demo game: the tree of parsers of espalier-slua
//! over the game API, prompted with the language document, the API and example
//! scripts, finished by its finishing mask, judged by running the game.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use espalier_constraint::TokTrie;
use espalier_slua::dfa::DfaCache;
use espalier_slua::{check, prompt, translate, Api, Env, SluaConstraint};

use super::{Benchmark, BenchmarkFormat, CheckOptions, Checked, Evaluation, Framing, LangSpec, Prompting};
use crate::{ConstraintInput, Kit, LangConstraint, LangError, Mode};

/// The registry's entry.
pub static LANGUAGE: Slua = Slua;

/// sLua with the game API.
pub struct Slua;

/// The task `bench decode` asks for by default.
const SAMPLE: &str = "A poison talent: the user poisons the target, dealing damage every turn.";

/// A fresh sLua constraint for a script of `kind` (`effect` or `talent`, any other
/// value: either) over the game API, where `effects` are the names of effects
/// already written (talents may apply them).
pub fn slua_constraint(kind: &str, effects: Vec<String>) -> LangConstraint {
    slua_constraint_sharing(kind, effects, Rc::new(DfaCache::default()), None)
}

/// [`slua_constraint`] with the compiled automata and cached masks of `dfas`, shared
/// with earlier constraints, and the vocabulary trie `trie` (both the kit's), so a
/// generation does not start cold.
pub fn slua_constraint_sharing(kind: &str, effects: Vec<String>, dfas: Rc<DfaCache>, trie: Option<Arc<TokTrie>>) -> LangConstraint {
    let env = Rc::new(Env::with_dfas(Api::dungeon(), effects, dfas));
    let c = match kind {
        "effect" | "talent" => SluaConstraint::for_kind(env, kind),
        _ => SluaConstraint::new(env),
    };
    let c = match trie {
        Some(trie) => c.with_trie(trie),
        None => c,
    };
    LangConstraint::Slua(Box::new(c))
}

/// The script kind a request asks for: `effect` when it says so, else `talent`.
pub fn slua_kind(request: &str) -> &'static str {
    let r = request.trim_start().to_ascii_lowercase();
    if r.starts_with("an effect") || r.starts_with("effect") {
        "effect"
    } else {
        "talent"
    }
}

/// The compact request: the talent examples of the slua crate, then the task (a few
/// hundred tokens, where the full prompt is about 3k).
fn compact_prompt(kind: &str, task: &str) -> String {
    let mut s = String::from("sLua is a typed subset of Lua for game scripts.\n");
    for (what, script) in prompt::EXAMPLES.iter().filter(|(what, _)| what.starts_with("a talent")) {
        s.push_str(&format!("\nWrite {what}.\n```lua\n{script}```\n"));
    }
    s.push_str(&format!("\nWrite {task}. Answer with one sLua {kind} script only.\n"));
    s
}

/// Loads the API from `path`, or the bundled dungeon API.
pub fn load_api(path: Option<&Path>) -> Result<Api, LangError> {
    match path {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| LangError::Setup(format!("cannot read API file {}: {e}", p.display())))?;
            Api::from_json(&text).map_err(|e| LangError::Setup(format!("{}: {e}", p.display())))
        }
        None => Ok(Api::dungeon()),
    }
}

const BENCHMARKS: &[Benchmark] = &[Benchmark { name: "slua", data_file: "", format: BenchmarkFormat::SluaCategories }];

impl LangSpec for Slua {
    fn name(&self) -> &'static str {
        "slua"
    }

    fn label(&self) -> &'static str {
        "sLua (game API)"
    }

    fn modes(&self) -> &'static [Mode] {
        &[Mode::None, Mode::Mask, Mode::Rejection]
    }

    fn missing_modes_note(&self) -> &'static str {
        "mode syncode needs an LR grammar's mask store; sLua uses the tree of parsers: pick mask or rejection"
    }

    fn kit(&self, vocab: &Arc<espalier_constraint::Vocab>) -> Result<Kit, LangError> {
        Ok(Kit::TreeOfParsers { dfas: Rc::new(DfaCache::default()), trie: Arc::new(TokTrie::new(vocab)) })
    }

    fn constraint(&self, kit: &Kit, mode: Mode, input: &ConstraintInput) -> Result<LangConstraint, LangError> {
        self.check_mode(mode)?;
        let c = match kit {
            Kit::TreeOfParsers { dfas, trie } => {
                slua_constraint_sharing(input.kind, input.effects.to_vec(), dfas.clone(), Some(trie.clone()))
            }
            _ => slua_constraint(input.kind, input.effects.to_vec()),
        };
        if input.prefix.is_empty() {
            return Ok(c);
        }
        let mut c = c;
        espalier_constraint::Constraint::commit(&mut c, input.prefix.as_bytes())
            .map_err(|rejected| LangError::Prefix { lang: "slua", offset: rejected.offset, rejected })?;
        Ok(c)
    }

    fn has_finishing_mask(&self) -> bool {
        true
    }
}

impl Prompting for Slua {
    fn cli_framing(&self) -> Framing {
        Framing::Chat { system: false, fence: false, full: true }
    }

    fn sample_request(&self) -> &'static str {
        SAMPLE
    }

    fn system(&self) -> String {
        "You are a helpful coding assistant. Answer with sLua code only.".to_string()
    }

    fn fence(&self) -> &'static str {
        "```lua\n"
    }

    fn instruction(&self, request: &str, kind: &str, full: bool) -> String {
        if full {
            prompt::prompt(&Api::dungeon(), kind, request)
        } else {
            compact_prompt(kind, request)
        }
    }

    fn kind_of(&self, request: &str) -> &'static str {
        slua_kind(request)
    }

    fn has_full_instruction(&self) -> bool {
        true
    }

    fn stop_strings(&self, framing: Framing) -> Vec<String> {
        match framing {
            Framing::Chat { fence: true, .. } => vec!["```".to_string()],
            _ => Vec::new(),
        }
    }
}

impl Evaluation for Slua {
    fn translation_label(&self) -> Option<&'static str> {
        Some("Translated Lua")
    }

    fn translation(&self, code: &str) -> Option<Result<String, String>> {
        let api = Api::dungeon();
        let env = Rc::new(Env::new(api.clone(), Vec::new()));
        Some(
            check(env, code)
                .map(|script| translate::to_lua(&script, &api))
                .map_err(|e| format!("not a complete sLua script yet (byte {}: expected /{}/)", e.offset, e.expected)),
        )
    }

    /// Checks the scripts in order (an effect registers itself for the scripts after
    /// it); `FILE:OFFSET: expected /REGEX/` for each invalid one.
    fn check_files(
        &self,
        files: &[PathBuf],
        options: &CheckOptions,
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> Result<Checked, LangError> {
        let api = load_api(options.api.as_deref())?;
        let mut effects: Vec<String> = Vec::new();
        let found = crate::source_file::check_each(files, out, errors, |path, bytes| {
            // Invalid UTF-8 is an invalid script (a verdict), not an unreadable file.
            let text = match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => {
                    let at = e.utf8_error().valid_up_to();
                    return Some(format!("{}:{at}: expected /(valid UTF-8)/", path.display()));
                }
            };
            match check(Rc::new(Env::new(api.clone(), effects.clone())), &text) {
                Ok(script) => {
                    if script.kind == "effect" {
                        effects.push(script.name);
                    }
                    None
                }
                Err(e) => Some(format!("{}:{}: expected /{}/", path.display(), e.offset, e.expected)),
            }
        });
        Ok(found)
    }

    fn benchmarks(&self) -> &'static [Benchmark] {
        BENCHMARKS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_pick_the_script_kind() {
        assert_eq!(slua_kind("an effect that burns"), "effect");
        assert_eq!(slua_kind("  Effect: burn"), "effect");
        assert_eq!(slua_kind("a talent that heals"), "talent");
    }

    #[test]
    fn full_and_compact_instructions_carry_the_task() {
        let full = LANGUAGE.instruction("a talent that heals its user", "talent", true);
        assert!(full.contains("Write a talent that heals its user."));
        assert!(full.contains("## API"));
        let compact = LANGUAGE.instruction("a talent that heals its user", "talent", false);
        assert!(!compact.contains("## API") && compact.len() < full.len() / 3);
        assert!(compact.contains("Answer with one sLua talent script only."));
    }

    #[test]
    fn syncode_is_refused_with_a_reason() {
        let err = LANGUAGE.constraint(&Kit::Plain, Mode::Syncode, &ConstraintInput::default()).err().unwrap();
        assert!(err.to_string().contains("pick mask or rejection"), "{err}");
    }

    #[test]
    fn a_complete_script_is_translated_and_a_partial_one_is_not() {
        let script = include_str!("../../../slua/tests/scripts/valid/01_burning.slua");
        let lua = LANGUAGE.translation(script).unwrap().unwrap();
        assert!(lua.contains("function"), "{lua}");
        let err = LANGUAGE.translation("effect Burn").unwrap().unwrap_err();
        assert!(err.starts_with("not a complete sLua script yet"), "{err}");
    }

    /// Constraints made from one kit share its automata and cached masks: two
    /// generations from it give, at every step, the masks of a fresh constraint (the
    /// second starts warm, so it reads the cache the first one filled).
    #[test]
    fn constraints_sharing_the_kit_give_the_masks_of_fresh_ones() {
        use espalier_constraint::{Constraint, TokenSet, Vocab};
        // The constraint ends with the script's last `end;`: no trailing newline.
        let script = include_str!("../../../slua/tests/scripts/valid/01_burning.slua").trim_end();
        let mut tokens: Vec<Vec<u8>> = vec![b"<eos>".to_vec()];
        tokens.extend((0u8..=255).map(|b| vec![b]));
        let mut words: Vec<Vec<u8>> = script.split_inclusive(char::is_whitespace).map(|w| w.as_bytes().to_vec()).collect();
        words.sort();
        words.dedup();
        tokens.extend(words.into_iter().filter(|w| w.len() > 1));
        let vocab = Vocab::new(tokens, &[0], 0);
        let allowed = |c: &mut LangConstraint| {
            let mut m = TokenSet::empty(vocab.len());
            c.fill_mask(&vocab, &mut m);
            (0..vocab.len()).filter(|&i| m.contains(i)).collect::<Vec<usize>>()
        };
        let kit = LANGUAGE.kit(&Arc::new(vocab.clone())).unwrap();
        assert!(matches!(kit, Kit::TreeOfParsers { .. }));
        let input = ConstraintInput { kind: "effect", ..ConstraintInput::default() };
        for generation in 0..2 {
            let mut shared = LANGUAGE.constraint(&kit, Mode::Mask, &input).unwrap();
            let mut fresh = slua_constraint("effect", Vec::new());
            for (step, chunk) in script.split_inclusive(char::is_whitespace).enumerate() {
                let (a, b) = (allowed(&mut shared), allowed(&mut fresh));
                assert_eq!(a, b, "generation {generation}, step {step} (before {chunk:?})");
                assert!(!a.is_empty());
                shared.commit(chunk.as_bytes()).unwrap();
                fresh.commit(chunk.as_bytes()).unwrap();
            }
            assert_eq!(allowed(&mut shared), allowed(&mut fresh), "generation {generation}, at the end");
        }
    }
}
