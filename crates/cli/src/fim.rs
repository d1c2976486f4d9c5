//! `espalier generate --lang python --fim-prefix FILE --fim-suffix FILE [--mode M]`:
//! fill in the middle between two files' texts and print it on stdout.
//!
//! The request is prepared first ([`FimConstraint::new`]): a prefix that is not the
//! start of a valid program, a suffix no middle can join, or non-UTF-8 text is an
//! error naming the byte, and nothing is generated.
//!
//! The prompt ([`espalier_engine::fim_prompt_ids`]): a model whose vocabulary has FIM tokens
//! (`<|fim_prefix|>` / `<|fim_suffix|>` / `<|fim_middle|>`, StarCoder's
//! `<fim_prefix>` ..., DeepSeek-Coder's `<｜fim▁begin｜>` ...; found by
//! `Tokenizer::fim_tokens`) gets the standard prefix-suffix-middle order. SmolLM2 has
//! none: the chat turn shows the code that follows the gap, and the answer starts
//! with the prefix, which the model continues (its last token healed). Under `mask`
//! the middle ends when EOS is sampled, which the constraint allows exactly when
//! prefix + middle + suffix is a complete program; under `none` a closing code fence
//! stops it.

use std::path::PathBuf;
use std::process::ExitCode;

use espalier_constraint::{FimConstraint, MaskKit};
use espalier_decode::{GenerateConfig, Generator, Lang, Mode, StopReason};
use espalier_engine::{fim_prompt_ids, PromptIds};

use crate::generate::Args;

/// Runs the FIM form of `espalier generate`.
pub fn run_fim(
    args: Args,
    prefix_path: PathBuf,
    suffix_path: PathBuf,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let read = |p: &PathBuf| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let (prefix, suffix) = (read(&prefix_path)?, read(&suffix_path)?);
    let mode = args.mode.unwrap_or(Mode::Mask);
    if !matches!(mode, Mode::None | Mode::Mask | Mode::Rejection) {
        return Err(format!(
            "fill-in-the-middle takes --mode none, mask or rejection, not {}",
            mode.name()
        )
        .into());
    }
    let lang = espalier_grammar::python()?;
    let mut loaded = args.model.load()?;
    let kit = MaskKit::for_vocab(lang.clone(), &loaded.vocab);
    let constraint = FimConstraint::new(&kit, &prefix, &suffix)
        .map_err(|e| format!("{} + {}: {e}", prefix_path.display(), suffix_path.display()))?;
    // Both are UTF-8 now (checked by the constraint).
    let (prefix, suffix) = (
        String::from_utf8_lossy(&prefix).into_owned(),
        String::from_utf8_lossy(&suffix).into_owned(),
    );
    let python = Lang::from_name("python")?;
    let PromptIds { ids, heal, .. } = fim_prompt_ids(&loaded.tokenizer, python, &prefix, &suffix)?;
    eprintln!("model loaded ({} backend); prompt {} tokens", loaded.backend.name(), ids.len());
    let mut stop_strings = args.stop.clone();
    if mode == Mode::None {
        stop_strings.push("```".into());
    }
    let config = GenerateConfig {
        mode,
        sampling: args.sampling(),
        max_tokens: args.max_tokens,
        stop_strings,
        heal_prompt: heal,
        ..GenerateConfig::default()
    }
    .with_wrap_up(args.wrap_up.wrap_up, args.wrap_up.no_wrap_up);
    let mut generator = Generator::new(loaded.vocab.clone(), constraint, &ids, config)?;
    let timing = espalier_decode::run(&mut generator, &mut loaded.model, |_, _| {})?;
    let middle = generator.text();
    let joined = {
        let mut r = lang.recognizer();
        r.push_bytes(prefix.as_bytes()).is_ok()
            && r.push_bytes(middle.as_bytes()).is_ok()
            && r.push_bytes(suffix.as_bytes()).is_ok()
            && r.is_complete()
    };
    let stop = generator.stop_reason().cloned().unwrap_or(StopReason::MaxTokens);
    if args.json {
        println!(
            "{}",
            serde_json::json!({"middle": middle, "joins": joined, "stop": stop, "mode": mode, "decode_tps": timing.decode_tps(), "decode_tokens": timing.decode_tokens})
        );
    } else {
        print!("{middle}");
    }
    eprintln!(
        "\ndecode: {} tokens, {:.1} tokens/s; stop: {}; prefix + middle + suffix {} a valid program",
        timing.decode_tokens,
        timing.decode_tps(),
        stop.name(),
        if joined { "is" } else { "is not" }
    );
    Ok(if joined { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
