//! `espalier eval fim --set singleline|randomspan|stack-boundary|stack-randspan
//! --mode none,checked,mask [--limit N] [--data FILE] [--out FILE]`: fill-in-the-middle
//! on the HumanEval infilling sets and on the paper's BOUNDARY / RANDSPAN sets rebuilt
//! from the CPython standard library ([`crate::fim_sets`]).
//!
//! Per case and mode: the request is prepared ([`FimConstraint`]), the middle is
//! generated greedily with the prompt of [`espalier_engine::fim_prompt_ids`] and checked with
//! CPython: `parse_ok` when `ast.parse` accepts prefix + middle + suffix, `passed`
//! when the tests pass (sets with tests only). SmolLM2 continues the whole file, so
//! after the middle it copies the suffix: generation stops at the suffix's first line
//! (a stop string, removed from the middle), at EOS (which `mask` allows exactly when
//! the middle joins), or at the token budget. `finished` counts the first two.
//!
//! Modes: `none` (unconstrained), `mask` and `rejection` (the constraint), and
//! `checked`, the paper's baseline: unconstrained generation stopped at the best point
//! where the text is valid. It is computed from the `none` generation (greedy, so the
//! same tokens): among the token boundaries of the unconstrained middle (its end
//! included), the last at which prefix + middle + suffix is a complete program (the
//! constraint's membership test) is where it stops; with no such point it is the
//! unconstrained middle. `finished` for `checked` counts the cases it stopped at a valid
//! point or `none` finished.
//!
//! Cases are run case-major (every mode of a case before the next case: the modes see
//! the same machine load). Every generation prefills its prompt afresh (no KV cache
//! reused), so that the modes see the same logits until a constraint acts. The last
//! line of stdout is one JSON object with a key per mode, each holding `cases`, `finished`, `parse_ok`,
//! `parse_ok_finished`, `pass_at_1` (null for sets without tests), `decode_tps`,
//! `tokens`, `prepare_errors`.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::harness::{PythonChecker, TestOutcome};
use espalier_constraint::{Constraint, FimConstraint, MaskKit, Vocab};
use espalier_decode::{GenerateConfig, Generator, Mode, SamplingConfig, StopReason};

use crate::eval_args::Args;
use crate::eval_output::{open_out, write_record};
use crate::fim_sets::{load_set, FimCase};
use espalier_engine::{fim_prompt_ids, Loaded, PromptIds};

/// A mode of `eval fim`: a decoding mode, or `checked` (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FimMode {
    Decode(Mode),
    Checked,
}

impl FimMode {
    fn parse(name: &str) -> Result<Self, String> {
        match name {
            "checked" => Ok(FimMode::Checked),
            _ => match name.parse::<Mode>() {
                Ok(m @ (Mode::None | Mode::Mask | Mode::Rejection)) => Ok(FimMode::Decode(m)),
                _ => Err(format!(
                    "eval fim takes modes none, checked, mask, rejection, not {name:?}"
                )),
            },
        }
    }

    fn name(self) -> &'static str {
        match self {
            FimMode::Decode(m) => m.name(),
            FimMode::Checked => "checked",
        }
    }

    /// The decoding run this mode reads.
    fn decoding(self) -> Mode {
        match self {
            FimMode::Decode(m) => m,
            FimMode::Checked => Mode::None,
        }
    }
}

/// The stop string that marks the model copying the suffix: its first non-blank line
/// (with its indentation), extended by the next line when shorter than 8 bytes.
fn suffix_head(suffix: &str) -> Option<String> {
    let start = suffix.find(|c: char| c != '\n')?;
    let rest = &suffix[start..];
    let mut end = rest.find('\n').unwrap_or(rest.len());
    if end < 8 {
        end = rest[end..]
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c == '\n')
            .map_or(rest.len(), |(i, _)| end + i);
    }
    let head = &rest[..end];
    (head.trim().len() >= 2).then(|| head.to_string())
}

/// One generated middle.
struct Generated {
    middle: String,
    stop: StopReason,
    finished: bool,
    tokens: usize,
    decode_s: f64,
    stats: espalier_decode::Stats,
}

/// The `checked` cut of an unconstrained middle: the byte offsets where its tokens end
/// (`tokens`: the generated ids, whose bytes may start with healed prompt bytes that
/// the middle leaves out), scanned with the constraint from the start; the last offset
/// at which prefix + middle + suffix is complete, if any.
fn checked_cut(
    fresh: &FimConstraint,
    vocab: &Vocab,
    tokens: &[u32],
    middle: &[u8],
) -> Option<usize> {
    let all: Vec<u8> = tokens
        .iter()
        .filter(|&&t| !vocab.is_special(t))
        .flat_map(|&t| vocab.bytes(t).iter().copied())
        .collect();
    let skip =
        (0..=all.len().saturating_sub(middle.len())).find(|&s| all[s..].starts_with(middle))?;
    let mut points: Vec<usize> = tokens
        .iter()
        .filter(|&&t| !vocab.is_special(t))
        .scan(0, |end, &t| {
            *end += vocab.bytes(t).len();
            Some(*end)
        })
        .filter_map(|e| e.checked_sub(skip))
        .filter(|&e| e >= 1 && e <= middle.len())
        .collect();
    points.push(middle.len());
    let mut c = fresh.clone();
    let mut at = 0;
    let mut best = None;
    for p in points {
        if p < at {
            continue;
        }
        if c.commit(&middle[at..p]).is_err() {
            break;
        }
        at = p;
        if p > 0 && c.is_complete() {
            best = Some(p);
        }
    }
    best
}

#[derive(Default)]
struct Tally {
    cases: usize,
    finished: usize,
    parse_ok: usize,
    parse_ok_finished: usize,
    passed: usize,
    tested: usize,
    tokens: usize,
    decode_s: f64,
    prepare_errors: usize,
}

impl Tally {
    /// Counts one judged middle of generation `g`.
    fn add(&mut self, g: &Generated, finished: bool, parse_ok: bool, passed: bool, tested: bool) {
        self.finished += usize::from(finished);
        self.parse_ok += usize::from(parse_ok);
        self.parse_ok_finished += usize::from(parse_ok && finished);
        self.passed += usize::from(passed);
        self.tested += usize::from(tested);
        self.tokens += g.tokens;
        self.decode_s += g.decode_s;
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "cases": self.cases,
            "finished": self.finished,
            "parse_ok": self.parse_ok,
            "parse_ok_finished": self.parse_ok_finished,
            "pass_at_1": if self.tested > 0 { serde_json::json!(self.passed as f64 / self.tested as f64) } else { serde_json::Value::Null },
            "decode_tps": if self.decode_s > 0.0 { self.tokens as f64 / self.decode_s } else { 0.0 },
            "tokens": self.tokens,
            "prepare_errors": self.prepare_errors,
        })
    }
}

/// Generates one middle greedily under `mode`.
fn generate(
    loaded: &mut Loaded,
    case: &FimCase,
    constraint: FimConstraint,
    mode: Mode,
    args: &Args,
) -> Result<(Generated, Vec<u32>), Box<dyn std::error::Error>> {
    let python = espalier_decode::Lang::from_name("python")?;
    let PromptIds { ids, heal, .. } =
        fim_prompt_ids(&loaded.tokenizer, python, &case.prompt, &case.suffix)?;
    let config = GenerateConfig {
        mode,
        sampling: SamplingConfig { temperature: 0.0, ..SamplingConfig::default() },
        max_tokens: args.max_tokens,
        stop_strings: suffix_head(&case.suffix).into_iter().collect(),
        heal_prompt: heal,
        ..GenerateConfig::default()
    }
    .with_wrap_up(args.wrap_up.wrap_up, args.wrap_up.no_wrap_up);
    // A fresh prefill for every generation, no KV cache reused: a reused cache makes the
    // generation feed the prompt's last position alone where the previous one fed it
    // in the prefill's batch, and the logits differ in their last bits; greedy near-ties
    // then flip, and `none` and `mask` part for no reason of the constraint's (measured:
    // RandomSpan HumanEval/16 wrote another middle under `mask` after `none` than alone).
    // With a fresh prefill each mode sees the same logits until its constraint acts.
    let mut generator = Generator::new(loaded.vocab.clone(), constraint, &ids, config)?;
    let keep = generator.next_input().map_or(0, |f| f.keep);
    loaded.model.cached.truncate(keep);
    let result = espalier_decode::run(&mut generator, &mut loaded.model, |_, _| {});
    loaded.model.cached =
        if result.is_ok() { generator.cached_context().to_vec() } else { Vec::new() };
    let timing = result?;
    let stop = generator.stop_reason().cloned().unwrap_or(StopReason::MaxTokens);
    let finished = !matches!(stop, StopReason::MaxTokens | StopReason::Repetition { .. });
    let g = Generated {
        middle: generator.text(),
        stop,
        finished,
        tokens: timing.decode_tokens,
        decode_s: timing.decode_s,
        stats: generator.stats().clone(),
    };
    Ok((g, generator.tokens().to_vec()))
}

/// Runs `espalier eval fim`.
pub fn run_eval_fim(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let set = args.set.clone().unwrap_or_else(|| "singleline".into());
    let modes: Vec<FimMode> =
        args.mode_names.iter().map(|m| FimMode::parse(m)).collect::<Result<_, _>>()?;
    let python = args.python.clone().unwrap_or_else(|| PathBuf::from("/usr/bin/python3.11"));
    let cases: Vec<FimCase> = load_set(&set, args.data.as_deref(), &python)?
        .into_iter()
        .skip(args.offset)
        .take(args.limit.unwrap_or(usize::MAX))
        .collect();
    let lang = espalier_grammar::python()?;
    let mut loaded = args.model.load()?;
    let kit = MaskKit::for_vocab(lang, &loaded.vocab);
    let mut eval = FimEval {
        args: &args,
        checker: PythonChecker { python, timeout: Duration::from_secs(args.timeout) },
        out: open_out(args.out.as_deref())?,
        tallies: modes.iter().map(|_| Tally::default()).collect(),
        modes,
    };
    eprintln!(
        "fim {set}: {} cases, modes {:?}, max {} tokens",
        cases.len(),
        eval.modes.iter().map(|m| m.name()).collect::<Vec<_>>(),
        args.max_tokens
    );
    for (k, case) in cases.iter().enumerate() {
        eval.case(&mut loaded, &kit, k, case)?;
    }
    let mut summary = serde_json::Map::new();
    for (mode, t) in eval.modes.iter().zip(&eval.tallies) {
        let m = t.summary();
        eprintln!("{set} {}: {m}", mode.name());
        summary.insert(mode.name().to_string(), m);
    }
    println!("{}", serde_json::Value::Object(summary));
    Ok(ExitCode::SUCCESS)
}

/// The run: its modes, the judge, the records' file and a tally per mode.
struct FimEval<'a> {
    args: &'a Args,
    modes: Vec<FimMode>,
    checker: PythonChecker,
    out: Option<BufWriter<File>>,
    tallies: Vec<Tally>,
}

impl FimEval<'_> {
    /// Every mode of one case (`k`: its index): one generation per decoding mode the
    /// modes read, each mode's middle judged.
    fn case(
        &mut self,
        loaded: &mut Loaded,
        kit: &MaskKit,
        k: usize,
        case: &FimCase,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let prepared = FimConstraint::new(kit, case.prompt.as_bytes(), case.suffix.as_bytes());
        let mut runs: Vec<(Mode, Generated, Vec<u32>)> = Vec::new();
        for m in 0..self.modes.len() {
            let mode = self.modes[m];
            self.tallies[m].cases += 1;
            let constraint = match &prepared {
                Ok(c) => c.clone(),
                Err(e) => {
                    self.tallies[m].prepare_errors += 1;
                    eprintln!("{}: {e}", case.task_id);
                    let record = serde_json::json!({"task_id": case.task_id, "mode": mode.name(), "error": e.to_string()});
                    write_record(&mut self.out, &record)?;
                    continue;
                }
            };
            let decoding = mode.decoding();
            if !runs.iter().any(|r| r.0 == decoding) {
                let (g, ids) = generate(loaded, case, constraint.clone(), decoding, self.args)?;
                runs.push((decoding, g, ids));
            }
            let (_, g, ids) = runs.iter().find(|r| r.0 == decoding).expect("run above");
            let middle = match mode {
                FimMode::Checked => checked_middle(&constraint, &loaded.vocab, ids, g),
                FimMode::Decode(_) => (g.middle.clone(), g.finished),
            };
            self.judge(k, case, m, g, middle)?;
        }
        Ok(())
    }

    /// Checks mode `m`'s middle (and whether it finished) with CPython, counts it,
    /// logs it and writes its record.
    fn judge(
        &mut self,
        k: usize,
        case: &FimCase,
        m: usize,
        g: &Generated,
        (middle, finished): (String, bool),
    ) -> Result<(), Box<dyn std::error::Error>> {
        let mode = self.modes[m];
        let whole = format!("{}{}{}", case.prompt, middle, case.suffix);
        let parse_ok = self.checker.syntax_error(&whole)?.is_none();
        let passed = case.has_tests()
            && parse_ok
            && matches!(
                self.checker.run_tests(&format!(
                    "{whole}\n\n{}\n\ncheck({})\n",
                    case.test, case.entry_point
                ))?,
                TestOutcome::Passed
            );
        self.tallies[m].add(g, finished, parse_ok, passed, case.has_tests());
        eprintln!(
            "[{k} {}] {}: {} tokens, stop {}, wrap-up from {:?} (distance {:?}), parse {}",
            mode.name(),
            case.task_id,
            g.tokens,
            g.stop.name(),
            g.stats.wrap_up_from,
            g.stats.wrap_up_distance,
            if parse_ok { "ok" } else { "error" }
        );
        let record = serde_json::json!({"task_id": case.task_id, "mode": mode.name(), "middle": middle, "stop": g.stop, "finished": finished, "parse_ok": parse_ok, "passed": passed,
            "tokens": g.tokens, "wrap_up_from": g.stats.wrap_up_from, "wrap_up_steps": g.stats.wrap_up_steps,
            "wrap_up_distance": g.stats.wrap_up_distance, "distance_s": g.stats.distance_s,
            "loop_detected": g.stats.loop_detected.is_some(), "constraint_s": g.stats.constraint_s});
        write_record(&mut self.out, &record)
    }
}

/// `checked`'s middle: the unconstrained middle cut at its last valid point (then it
/// counts as finished), else whole.
fn checked_middle(
    fresh: &FimConstraint,
    vocab: &Vocab,
    ids: &[u32],
    g: &Generated,
) -> (String, bool) {
    match checked_cut(fresh, vocab, ids, g.middle.as_bytes()) {
        Some(at) => (g.middle[..at].to_string(), true),
        None => (g.middle.clone(), g.finished),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `checked` stops at the last token boundary where the text is valid: not at the
    /// first (`z`), not past it (`z = 3 +`), and nowhere when no boundary is valid.
    #[test]
    fn checked_cuts_at_the_last_valid_token_boundary() {
        let words = ["<eos>", "<bos>", "z", " =", " 3", " +", "("];
        let vocab = Vocab::new(words.iter().map(|w| w.as_bytes().to_vec()).collect(), &[0, 1], 0);
        let py = espalier_grammar::python().unwrap();
        let kit = MaskKit::for_vocab(py, &vocab);
        let c = FimConstraint::new(&kit, b"x = 1\n", b"\ny = 2\n").unwrap();
        assert_eq!(checked_cut(&c, &vocab, &[2, 3, 4, 5], b"z = 3 +"), Some(5));
        assert_eq!(checked_cut(&c, &vocab, &[2, 3, 4, 0], b"z = 3"), Some(5));
        assert_eq!(checked_cut(&c, &vocab, &[6, 3], b"( ="), None);
        // A stop string cut inside the last token: its end is a boundary too.
        assert_eq!(checked_cut(&c, &vocab, &[2, 3, 4], b"z = "), Some(1));
    }

    #[test]
    fn suffix_heads() {
        assert_eq!(
            suffix_head("\n        for x in y:\n            z\n").as_deref(),
            Some("        for x in y:")
        );
        assert_eq!(suffix_head("re\n    return 1\n").as_deref(), Some("re\n    return 1"));
        assert_eq!(suffix_head("\n\n"), None);
    }
}
