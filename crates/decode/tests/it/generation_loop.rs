//! The generation loop against small real constraints and a deterministic model:
//! modes agree, EOS waits for a complete program, healing regenerates a token under a
//! forced prefix, prompt healing and rewinding roll the KV cache back correctly.

use crate::common;

use std::sync::Arc;

use common::{id, vocab, HashModel, Targets};
use espalier_decode::LanguageModel;
use espalier_decode::{
    run, GenerateConfig, Generator, How, Mode, RepetitionGuard, SamplingConfig, StopReason,
    Unconstrained,
};

const TOKENS: &[&str] = &[
    "a", "b", "c", "ab", "abc", "foo", "foo(", "(", "bar", ")", "(bar)", "x", "\n", "\n    ", " ",
    "y", "fo", "o", "f", "r",
];
/// The same without "o": after "fo" nothing could spell the rest of "foo".
const NO_O: &[&str] = &["a", "b", "c", "foo", "foo(", "(bar)", "fo", "x"];

fn config(mode: Mode) -> GenerateConfig {
    GenerateConfig { mode, max_tokens: 40, ..GenerateConfig::default() }
}

fn generate<C: espalier_decode::Constraint>(
    c: C,
    prompt: &[u32],
    cfg: GenerateConfig,
    prefer: &[(&str, f32)],
) -> (Generator<C>, HashModel) {
    generate_with(TOKENS, c, prompt, cfg, prefer)
}

fn generate_with<C: espalier_decode::Constraint>(
    tokens: &[&str],
    c: C,
    prompt: &[u32],
    cfg: GenerateConfig,
    prefer: &[(&str, f32)],
) -> (Generator<C>, HashModel) {
    let v = Arc::new(vocab(tokens));
    let mut model = HashModel::new(v.len());
    model.prefer = prefer.iter().map(|(t, b)| (id(&v, t), *b)).collect();
    let mut g = Generator::new(v, c, prompt, cfg).unwrap();
    run(&mut g, &mut model, |_, _| {}).unwrap();
    (g, model)
}

#[test]
fn every_constrained_mode_yields_a_target_and_ends_with_eos() {
    let targets = ["abcabc", "foo(bar)", "x y"];
    for mode in [Mode::Mask, Mode::Rejection, Mode::Syncode] {
        for seed in 0..20 {
            let mut cfg = config(mode);
            cfg.sampling = SamplingConfig { temperature: 1.0, top_k: 0, top_p: 1.0, seed };
            // The model loves EOS: it must wait until the text is complete.
            let (g, _) = generate(Targets::new(&targets), &[1], cfg, &[("<eos>", 6.0)]);
            assert_eq!(
                g.stop_reason(),
                Some(&StopReason::Eos),
                "{mode} seed {seed} text {:?}",
                g.text()
            );
            assert!(targets.contains(&g.text().as_str()), "{mode} seed {seed}: {:?}", g.text());
        }
    }
}

#[test]
fn unconstrained_mode_follows_the_model() {
    let (g, _) = generate(Targets::new(&["abc"]), &[1], config(Mode::None), &[("x", 20.0)]);
    assert_eq!(
        g.stop_reason(),
        Some(&StopReason::MaxTokens),
        "40 tokens is below the guard's span of 64"
    );
    assert_eq!(g.text(), "x".repeat(40));
}

#[test]
fn greedy_rejection_equals_greedy_mask_and_masks_less() {
    let targets = ["abcabc", "foo(bar)", "x y", "ab(bar)"];
    let (m, _) = generate(Targets::new(&targets), &[1], config(Mode::Mask), &[("a", 2.0)]);
    let (r, _) = generate(Targets::new(&targets), &[1], config(Mode::Rejection), &[("a", 2.0)]);
    assert_eq!(m.tokens(), r.tokens());
    assert!(
        r.stats().masks < m.stats().masks,
        "rejection {} masks, mask {}",
        r.stats().masks,
        m.stats().masks
    );
    assert_eq!(m.stats().masks, m.tokens().len());
}

#[test]
fn a_token_across_a_segment_boundary_is_healed() {
    // "foo(" crosses the boundary after "foo": the constraint keeps "foo", and the
    // loop must regenerate from the same logits a token that is (a prefix of) "foo".
    let c = Targets::new(&["foo(bar)"]).with_boundaries(&[3]);
    let prefer = [("foo(", 30.0), ("(bar)", 20.0)];
    let (g, model) = generate(c, &[1], config(Mode::Rejection), &prefer);
    assert_eq!(g.text(), "foo(bar)");
    assert_eq!(g.stop_reason(), Some(&StopReason::Eos));
    let v = g.vocab();
    let texts: Vec<String> = g.tokens().iter().map(|&t| g.token_text(t)).collect();
    assert_eq!(texts[0], "foo", "healed token, got {texts:?}");
    assert_eq!(g.hows()[0], How::Healed);
    assert_eq!(texts[1], "(bar)");
    assert!(g.stats().heals >= 1);
    // The healed-away "foo(" never reached the model.
    assert!(model.calls.iter().all(|(_, toks)| !toks.contains(&id(v, "foo("))));
    assert_eq!(model.cache, [&[1][..], &g.tokens()[..2]].concat());
}

#[test]
fn healing_can_end_on_a_shorter_token_and_force_the_rest() {
    // After the heal to "foo", the model prefers "fo": the loop emits it and the
    // remaining forced byte "o" comes as the next token.
    let c = Targets::new(&["foo(bar)"]).with_boundaries(&[3]);
    let prefer = [("foo(", 30.0), ("fo", 25.0), ("foo", -50.0)];
    let v = vocab(TOKENS);
    let (g, _) = generate(c, &[1], config(Mode::Mask), &prefer);
    assert_eq!(g.text(), "foo(bar)", "tokens {:?}", g.tokens());
    assert_eq!(&g.tokens()[..2], &[id(&v, "fo"), id(&v, "o")]);
    assert_eq!(&g.hows()[..2], &[How::Healed, How::Healed]);
}

#[test]
fn healing_never_strands_a_prefix_no_token_can_finish() {
    // Without an "o" token, "fo" would leave "o" unspellable: "foo" must be chosen
    // despite its low score.
    let c = Targets::new(&["foo(bar)"]).with_boundaries(&[3]);
    let prefer = [("foo(", 30.0), ("fo", 25.0), ("foo", -50.0)];
    let v = vocab(NO_O);
    let (g, _) = generate_with(NO_O, c, &[1], config(Mode::Mask), &prefer);
    assert_eq!(g.text(), "foo(bar)", "tokens {:?}", g.tokens());
    assert_eq!(g.tokens()[0], id(&v, "foo"));
}

#[test]
fn prompt_healing_rolls_back_the_last_prompt_token() {
    let v = vocab(TOKENS);
    let nl = id(&v, "\n");
    let prompt = [1, nl];
    let mut c = Targets::new(&["a\n    x"]);
    use espalier_decode::Constraint;
    c.commit(b"a\n").unwrap();
    let mut cfg = config(Mode::Mask);
    cfg.heal_prompt = true;
    let (g, model) = generate(c, &prompt, cfg, &[("\n    ", 10.0)]);
    assert_eq!(g.tokens()[0], id(&v, "\n    "), "the healed token merges the newline");
    assert_eq!(g.text(), "    x", "the prompt's own bytes are not output");
    assert_eq!(model.calls[0], (0, vec![1]), "prefill leaves the healed token out");
}

#[test]
fn a_stop_string_starting_in_the_healed_prompt_does_not_stop() {
    // The prompt ends in "\n" (healed); the model's first token is that "\n" and its
    // second "x": "\nx" spans the prompt and the output, which is not a stop.
    let v = Arc::new(vocab(TOKENS));
    let nl = id(&v, "\n");
    for mode in [Mode::None, Mode::Mask] {
        let mut c = Targets::new(&["a\nxy"]);
        use espalier_decode::Constraint;
        c.commit(b"a\n").unwrap();
        let mut cfg = config(mode);
        cfg.heal_prompt = true;
        cfg.stop_strings = vec!["\nx".into()];
        let mut model = HashModel::new(v.len());
        let mut g = Generator::new(v.clone(), c, &[1, nl], cfg).unwrap();
        for next in ["\n", "x", "y", "<eos>"] {
            let Some(feed) = g.next_input() else { break };
            model.truncate(feed.keep);
            model.prefer = vec![(id(&v, next), 60.0)];
            let logits = model.forward(feed.tokens).unwrap();
            g.step(&logits, std::time::Duration::ZERO).unwrap();
        }
        assert_eq!(g.text(), "xy", "{mode}");
        assert_eq!(g.stop_reason(), Some(&StopReason::Eos), "{mode}");
    }
}

#[test]
fn eos_only_when_complete_even_when_the_model_insists() {
    let (g, _) = generate(
        Targets::new(&["abc", "abcabc"]),
        &[1],
        config(Mode::Rejection),
        &[("<eos>", 50.0)],
    );
    assert_eq!(g.text(), "abc");
    assert!(g.hows()[0] == How::Resampled, "EOS refused at the first step");
}

#[test]
fn stop_strings_cut_the_text_and_repetition_is_reported() {
    let mut cfg = config(Mode::None);
    cfg.stop_strings = vec!["bb".into()];
    let (g, _) = generate(Unconstrained, &[1], cfg, &[("b", 30.0)]);
    assert_eq!(g.text(), "");
    assert_eq!(g.stop_reason(), Some(&StopReason::StopString { stop: "bb".into() }));

    let mut cfg = config(Mode::None);
    cfg.max_tokens = 200;
    cfg.repetition = Some(RepetitionGuard {
        max_period: 4,
        min_span: 16,
        min_repeats: 4,
        ..RepetitionGuard::default()
    });
    let (g, _) = generate(Unconstrained, &[1], cfg, &[("y", 30.0)]);
    assert_eq!(g.stop_reason(), Some(&StopReason::Repetition { period: 1, span: 16 }));
    assert_eq!(g.tokens().len(), 16);
}

#[test]
fn rewinding_past_a_stop_string_restores_the_cut_text() {
    let mut cfg = config(Mode::None);
    cfg.stop_strings = vec!["ab".into()];
    cfg.history = true;
    let v = Arc::new(vocab(TOKENS));
    let mut model = HashModel::new(v.len());
    let mut g = Generator::new(v.clone(), Unconstrained, &[1], cfg).unwrap();
    // "x", "x", "a", then "b": the stop string "ab" spans the last two tokens.
    for next in ["x", "x", "a", "b"] {
        let feed = g.next_input().expect("not stopped yet");
        model.truncate(feed.keep);
        model.prefer = vec![(id(&v, next), 60.0)];
        let logits = model.forward(feed.tokens).unwrap();
        g.step(&logits, std::time::Duration::ZERO).unwrap();
    }
    assert_eq!(g.stop_reason(), Some(&StopReason::StopString { stop: "ab".into() }));
    assert_eq!(g.text(), "xx", "the stop string is cut");
    g.rewind(3).unwrap();
    assert_eq!(g.text(), "xxa", "the bytes the stop string cut come back");
    assert_eq!(g.stop_reason(), None);
    g.rewind(1).unwrap();
    assert_eq!(g.text(), "x");
}

#[test]
fn under_a_constraint_a_stop_string_ends_only_a_complete_text() {
    // Drives the model token by token, preferring `script` in turn.
    fn drive(targets: &[&str], script: &[&str]) -> Generator<Targets> {
        let mut cfg = config(Mode::Mask);
        cfg.stop_strings = vec!["\nx".into()];
        let v = Arc::new(vocab(TOKENS));
        let mut model = HashModel::new(v.len());
        let mut g = Generator::new(v.clone(), Targets::new(targets), &[1], cfg).unwrap();
        for next in script {
            let Some(feed) = g.next_input() else { break };
            model.truncate(feed.keep);
            model.prefer = vec![(id(&v, next), 60.0)];
            let logits = model.forward(feed.tokens).unwrap();
            g.step(&logits, std::time::Duration::ZERO).unwrap();
        }
        g
    }
    // "ab" is complete: "\nx" after it stops the generation and is cut.
    let g = drive(&["ab", "ab\nxy"], &["ab", "\n", "x"]);
    assert_eq!(g.stop_reason(), Some(&StopReason::StopString { stop: "\nx".into() }));
    assert_eq!(g.text(), "ab");
    assert_eq!(g.stats().stops_passed, 0);
    // "a" is not complete: the same stop string is passed over and the text goes on.
    let g = drive(&["a\nxy"], &["a", "\n", "x", "y", "<eos>"]);
    assert_eq!(g.stats().stops_passed, 1);
    assert_eq!(g.text(), "a\nxy");
    assert_eq!(g.stop_reason(), Some(&StopReason::Eos));
    // Without a constraint the stop string always ends it.
    let mut cfg = config(Mode::None);
    cfg.stop_strings = vec!["\nx".into()];
    let v = Arc::new(vocab(TOKENS));
    let mut model = HashModel::new(v.len());
    let mut g = Generator::new(v.clone(), Unconstrained, &[1], cfg).unwrap();
    for next in ["a", "\n", "x"] {
        let feed = g.next_input().unwrap();
        model.truncate(feed.keep);
        model.prefer = vec![(id(&v, next), 60.0)];
        let logits = model.forward(feed.tokens).unwrap();
        g.step(&logits, std::time::Duration::ZERO).unwrap();
    }
    assert_eq!(g.text(), "a");
    assert_eq!(g.stop_reason(), Some(&StopReason::StopString { stop: "\nx".into() }));
}

#[test]
fn dead_end_is_reported_not_panicked() {
    // No token can start "zzz".
    let (g, _) = generate(Targets::new(&["zzz"]), &[1], config(Mode::Mask), &[]);
    assert!(matches!(g.stop_reason(), Some(StopReason::DeadEnd { .. })));
    assert!(g.text().is_empty());
}

#[test]
fn rewinding_restores_state_and_rolls_the_cache_back() {
    let targets = ["abcabcabc", "foo(bar)(bar)", "x y x y"];
    let mut cfg = config(Mode::Mask);
    cfg.history = true;
    cfg.sampling = SamplingConfig { temperature: 1.0, top_k: 0, top_p: 1.0, seed: 5 };
    let v = Arc::new(vocab(TOKENS));
    let mut model = HashModel::new(v.len());
    let mut fresh = Generator::new(v.clone(), Targets::new(&targets), &[1], cfg.clone()).unwrap();
    run(&mut fresh, &mut HashModel::new(v.len()), |_, _| {}).unwrap();

    let mut g = Generator::new(v.clone(), Targets::new(&targets), &[1], cfg).unwrap();
    run(&mut g, &mut model, |_, _| {}).unwrap();
    assert_eq!(g.tokens(), fresh.tokens());
    let n = g.tokens().len();
    assert!(n >= 3, "{:?}", g.text());
    g.rewind(1).unwrap();
    assert_eq!(g.tokens().len(), 1);
    let feed = g.next_input().unwrap();
    assert_eq!(feed.keep, 1, "keep the prompt, refeed the first generated token");
    run(&mut g, &mut model, |_, _| {}).unwrap();
    assert_eq!(g.tokens(), fresh.tokens(), "same seed state, same cache, same text");
    assert_eq!(g.text(), fresh.text());
    assert!(g.rewind(99).is_err());
}

#[test]
fn traces_serialize_and_flag_allowed_candidates() {
    let mut cfg = config(Mode::Rejection);
    cfg.trace = true;
    let v = Arc::new(vocab(TOKENS));
    let mut model = HashModel::new(v.len());
    let mut g = Generator::new(v, Targets::new(&["abc"]), &[1], cfg).unwrap();
    let mut lines = Vec::new();
    run(&mut g, &mut model, |_, out| {
        lines.push(serde_json::to_string(out.trace.as_ref().unwrap()).unwrap())
    })
    .unwrap();
    assert_eq!(lines.len(), g.tokens().len());
    let first: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(first["step"], 0);
    let cands = first["candidates"].as_array().unwrap();
    assert_eq!(cands.len(), 8);
    for c in cands {
        let text = c["text"].as_str().unwrap();
        let allowed = "abc".starts_with(text) && !text.is_empty();
        assert_eq!(c["allowed"], allowed, "{text}");
    }
    let last: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(last["stop"]["reason"], "eos");
    assert_eq!(last["inspect"]["kind"], "targets");
}

#[test]
fn misuse_gets_typed_errors() {
    use espalier_decode::DecodeError;
    let v = Arc::new(vocab(TOKENS));
    assert_eq!(
        Generator::new(v.clone(), Unconstrained, &[], config(Mode::None)).unwrap_err(),
        DecodeError::EmptyPrompt
    );
    assert!(matches!(
        Generator::new(v.clone(), Unconstrained, &[999], config(Mode::None)),
        Err(DecodeError::TokenOutOfRange { id: 999, position: 0, .. })
    ));
    let mut g = Generator::new(v, Unconstrained, &[1], config(Mode::None)).unwrap();
    assert!(matches!(
        g.step(&[0.0; 3], Default::default()),
        Err(DecodeError::LogitsLength { got: 3, .. })
    ));
}

#[test]
fn wrap_up_steers_to_the_shortest_completion_when_the_budget_runs_low() {
    let long = "abc".repeat(8);
    let targets = ["abcabcx", long.as_str()];
    let v = Arc::new(vocab(TOKENS));
    for mode in [Mode::Mask, Mode::Rejection] {
        let cfg =
            GenerateConfig { mode, max_tokens: 5, wrap_up: Some(3), ..GenerateConfig::default() };
        // Without a finishing mask the option does nothing: the model's favourite "abc"
        // runs out the budget.
        let mut model = HashModel::new(v.len());
        model.prefer = vec![(id(&v, "abc"), 20.0)];
        let mut g = Generator::new(v.clone(), Targets::new(&targets), &[1], cfg.clone()).unwrap();
        run(&mut g, &mut model, |_, _| {}).unwrap();
        assert_eq!(g.stop_reason(), Some(&StopReason::MaxTokens), "{mode}");
        assert_eq!(g.stats().wrap_up_from, None);

        let mut model = HashModel::new(v.len());
        model.prefer = vec![(id(&v, "abc"), 20.0)];
        let mut cfg = cfg;
        cfg.trace = true;
        let mut g =
            Generator::new(v.clone(), Targets::new(&targets).with_finishing(), &[1], cfg).unwrap();
        let mut wrapped_steps = Vec::new();
        run(&mut g, &mut model, |_, outcome| {
            let t = outcome.trace.as_ref().unwrap();
            if t.wrap_up {
                wrapped_steps.push(t.step);
            }
        })
        .unwrap();
        assert_eq!(g.text(), "abcabcx", "{mode}");
        assert_eq!(g.stop_reason(), Some(&StopReason::Eos), "{mode}");
        assert_eq!(g.stats().wrap_up_from, Some(2), "{mode}: 3 tokens left after two steps");
        assert_eq!(g.stats().wrap_up_steps, 2, "{mode}");
        assert_eq!(wrapped_steps, vec![2, 3], "{mode}");
    }
}

#[test]
fn a_shared_prompt_prefix_is_not_fed_again() {
    let v = Arc::new(vocab(TOKENS));
    let mut model = HashModel::new(v.len());
    let cfg = GenerateConfig { mode: Mode::Mask, max_tokens: 6, ..GenerateConfig::default() };
    let mut first =
        Generator::new(v.clone(), Targets::new(&["abcabc"]), &[1, 2, 3, 4], cfg.clone()).unwrap();
    run(&mut first, &mut model, |_, _| {}).unwrap();
    let cached = first.cached_context().to_vec();
    assert_eq!(&cached[..4], &[1, 2, 3, 4]);

    // Same first three prompt tokens: only the fourth is fed, after truncating to 3.
    model.calls.clear();
    let mut second =
        Generator::new(v.clone(), Targets::new(&["abcabc"]), &[1, 2, 3, 5], cfg.clone())
            .unwrap()
            .reuse_cache(&cached);
    run(&mut second, &mut model, |_, _| {}).unwrap();
    assert_eq!(model.calls[0], (3, vec![5]));

    // The same generation from a cold cache gives the same tokens (the cache was right).
    let mut cold_model = HashModel::new(v.len());
    let mut cold = Generator::new(v, Targets::new(&["abcabc"]), &[1, 2, 3, 5], cfg).unwrap();
    run(&mut cold, &mut cold_model, |_, _| {}).unwrap();
    assert_eq!(cold.tokens(), second.tokens());
}

#[test]
fn a_loop_switches_to_the_wrap_up_instead_of_stopping_when_asked() {
    // "ab" forever, or "ab" * k then "x": the model loves "ab".
    let mut owned: Vec<String> = (0..40).map(|k| format!("{}x", "ab".repeat(k))).collect();
    owned.push("ab".repeat(40));
    let targets: Vec<&str> = owned.iter().map(String::as_str).collect();
    let v = Arc::new(vocab(TOKENS));
    let guard = RepetitionGuard {
        max_period: 4,
        min_span: 8,
        min_repeats: 4,
        ..RepetitionGuard::default()
    };
    // (wrap up on repetition, the constraint has a finishing mask, mode)
    for (flag, finishing, mode) in [
        (false, true, Mode::Mask),
        (true, true, Mode::Mask),
        (true, true, Mode::Rejection),
        (true, false, Mode::Mask),
    ] {
        let cfg = GenerateConfig {
            mode,
            max_tokens: 60,
            repetition: Some(guard.clone()),
            wrap_up_on_repetition: flag,
            ..GenerateConfig::default()
        };
        let mut model = HashModel::new(v.len());
        model.prefer = vec![(id(&v, "ab"), 20.0)];
        let constraint = if finishing {
            Targets::new(&targets).with_finishing()
        } else {
            Targets::new(&targets)
        };
        let mut g = Generator::new(v.clone(), constraint, &[1], cfg).unwrap();
        run(&mut g, &mut model, |_, _| {}).unwrap();
        if flag && finishing {
            assert_eq!(g.text(), format!("{}x", "ab".repeat(8)), "{mode}");
            assert_eq!(g.stop_reason(), Some(&StopReason::Eos), "{mode}");
            assert_eq!(
                g.stats().loop_detected,
                Some(StopReason::Repetition { period: 1, span: 8 }),
                "{mode}"
            );
            assert_eq!(g.stats().wrap_up_from, Some(8), "{mode}");
        } else {
            assert_eq!(g.stop_reason(), Some(&StopReason::Repetition { period: 1, span: 8 }));
            assert_eq!(g.stats().loop_detected, None);
        }
    }
}

/// The loop starts a model's pass early ([`Logits::submit`]) only for a step with CPU
/// work to prepare (a constrained step's mask), and always before the step's first
/// draw; an unconstrained step's pass goes to the device with the draw (one submit a
/// step fewer on a GPU).
#[test]
fn a_pass_is_submitted_early_only_when_the_step_prepares_a_mask() {
    use std::cell::RefCell;
    use std::rc::Rc;

    use espalier_constraint::TokenSet;
    use espalier_decode::{HostLogits, Logits, LogitsError};

    /// What the loop asked of each step's logits, in order.
    type Log = Rc<RefCell<Vec<&'static str>>>;

    struct Counting(HashModel, Log);
    struct CountingLogits(HostLogits<'static>, Log);

    impl Logits for CountingLogits {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn argmax(
            &mut self,
            n: usize,
            allowed: Option<&TokenSet>,
            refused: &[u32],
        ) -> Result<Option<u32>, LogitsError> {
            self.1.borrow_mut().push("draw");
            self.0.argmax(n, allowed, refused)
        }
        fn host(&mut self) -> Result<&[f32], LogitsError> {
            self.1.borrow_mut().push("draw");
            self.0.host()
        }
        fn submit(&mut self) -> Result<(), LogitsError> {
            self.1.borrow_mut().push("submit");
            Ok(())
        }
    }

    impl LanguageModel for Counting {
        type Error = common::NeverFails;
        fn truncate(&mut self, len: usize) {
            self.0.truncate(len);
        }
        fn forward(&mut self, tokens: &[u32]) -> Result<Vec<f32>, Self::Error> {
            self.0.forward(tokens)
        }
        fn forward_logits(&mut self, tokens: &[u32]) -> Result<Box<dyn Logits + '_>, Self::Error> {
            self.1.borrow_mut().push("pass");
            let logits = HostLogits(std::borrow::Cow::Owned(self.0.forward(tokens)?));
            Ok(Box::new(CountingLogits(logits, self.1.clone())))
        }
    }

    let v = Arc::new(vocab(TOKENS));
    for mode in [Mode::None, Mode::Mask, Mode::Rejection] {
        let log = Log::default();
        let mut model = Counting(HashModel::new(v.len()), log.clone());
        let mut g =
            Generator::new(v.clone(), Targets::new(&["foo(bar)"]), &[1], config(mode)).unwrap();
        run(&mut g, &mut model, |_, _| {}).unwrap();
        let log = log.borrow();
        let passes = log.iter().filter(|e| **e == "pass").count();
        let submits = log.iter().filter(|e| **e == "submit").count();
        assert!(passes >= 3, "{mode}: {passes} passes");
        match mode {
            Mode::None => assert_eq!(submits, 0, "{mode}: {log:?}"),
            Mode::Mask => assert_eq!(submits, passes, "{mode}: {log:?}"),
            // Draws first; submits only where it probes or wraps up.
            _ => assert!(submits < passes, "{mode}: {log:?}"),
        }
        // Each pass is submitted, if at all, before anything is drawn from it.
        for step in log.split(|e| *e == "pass").skip(1) {
            let first_draw = step.iter().position(|e| *e == "draw");
            let submit = step.iter().position(|e| *e == "submit");
            assert!(submit.is_none_or(|s| first_draw.is_some_and(|d| s < d)), "{mode}: {step:?}");
        }
    }
}
