//! End to end with the real SmolLM2 and the real constraints: a few greedy tokens of
//! a HumanEval completion under the Python grammar (mask and rejection must agree,
//! the text must stay a valid prefix) and of an sLua talent under the tree of
//! parsers. Run in release mode (CI does): a few seconds on two cores.

use std::sync::Arc;

use espalier_constraint::{Constraint, Vocab};
use espalier_decode::languages::slua::slua_constraint;
use espalier_decode::{run, GenerateConfig, Generator, Kits, Lang, LanguageModel, Mode, Task};
use espalier_engine::{vocab_of, LlamaModel};
use espalier_model::{BackendKind, Llama, Tokenizer};

use crate::common::real_data;

fn load() -> (Tokenizer, Arc<Vocab>, LlamaModel) {
    let gguf = real_data::gguf();
    let tok = Tokenizer::from_gguf(&gguf).unwrap();
    let vocab = Arc::new(vocab_of(&tok));
    let llama = Llama::load(&gguf, &BackendKind::Ndarray.device().unwrap()).unwrap();
    (tok, vocab, LlamaModel::new(llama))
}

const PROMPT: &str =
    "def add(a: int, b: int) -> int:\n    \"\"\"Return the sum of a and b.\"\"\"\n";

#[test]
fn python_completion_under_the_grammar_is_a_valid_prefix_in_mask_and_rejection_modes() {
    let (tok, vocab, mut model) = load();
    let mut kits = Kits::new(vocab.clone());
    let python = Lang::from_name("python").unwrap();
    let ids = tok.encode(PROMPT).unwrap();
    let mut outputs = Vec::new();
    for mode in [Mode::Mask, Mode::Rejection] {
        let config = GenerateConfig {
            mode,
            max_tokens: 8,
            heal_prompt: true,
            trace: true,
            // The grammar's own mask and rejection, compared without the wrap-up (on by
            // default: with 8 tokens of budget it would narrow every step).
            wrap_up: None,
            wrap_up_on_repetition: false,
            ..GenerateConfig::default()
        };
        let c = Task::new(Some(python), mode, PROMPT).constraint(&mut kits).unwrap();
        let mut g = Generator::new(vocab.clone(), c, &ids, config).unwrap();
        model.truncate(0);
        let mut steps = 0;
        run(&mut g, &mut model, |_, out| {
            steps += 1;
            assert!(out.trace.as_ref().unwrap().inspect.is_some());
        })
        .unwrap();
        assert!(steps >= 1);
        let text = g.text();
        eprintln!("{mode}: {text:?} ({:?})", g.stop_reason());
        // An independent constraint accepts prompt + completion as a prefix.
        let mut check = Task::new(Some(python), Mode::Mask, "").constraint(&mut kits).unwrap();
        check.commit(format!("{PROMPT}{text}").as_bytes()).expect("completion stays valid Python");
        outputs.push(g.tokens().to_vec());
    }
    assert_eq!(outputs[0], outputs[1], "greedy mask and greedy rejection choose the same tokens");
}

#[test]
fn slua_talent_under_the_tree_of_parsers_starts_as_the_grammar_says() {
    let (tok, vocab, mut model) = load();
    let text = espalier_decode::prompt::render_chat(
        tok.chat_template(),
        &[espalier_decode::prompt::Message::new(
            "user",
            "Write an sLua talent that sets a target on fire.",
        )],
        true,
    )
    .unwrap();
    let ids = tok.encode(&text).unwrap();
    let config =
        GenerateConfig { mode: Mode::Rejection, max_tokens: 6, ..GenerateConfig::default() };
    let mut g = Generator::new(vocab, slua_constraint("talent", vec![]), &ids, config).unwrap();
    run(&mut g, &mut model, |_, _| {}).unwrap();
    let out = g.text();
    eprintln!("slua: {out:?}");
    assert!(out.starts_with("talent"), "an sLua talent starts with `talent`: {out:?}");
}
