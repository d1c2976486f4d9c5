//! What `espalier eval` writes: one [`ProblemRecord`] per generated sample (JSON
//! lines in `--out FILE`) and a [`Summary`] per mode (the last stdout line).

use serde::{Deserialize, Serialize};

use crate::harness::TestOutcome;
use espalier_constraint::Constraint;
use espalier_decode::{Generator, Mode, Stats, StopReason, Timing};

/// One sample of one problem.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProblemRecord {
    /// The problem's id.
    pub task_id: String,
    /// The constraint mode.
    pub mode: Mode,
    /// Sample index (0 for greedy).
    pub sample: usize,
    /// The generated completion.
    pub completion: String,
    /// How the generation went (its keys sit in the record's object).
    #[serde(flatten)]
    pub run: Generation,
    /// CPython's syntax error for prompt + completion, if any.
    pub syntax_error: Option<String>,
    /// The tests' outcome (`None` when there were no tests to run).
    pub test: Option<TestOutcome>,
    /// Why the sample could not be generated (e.g. the grammar refused the prompt).
    pub error: Option<String>,
    /// Whether the language's grammar refuses the prompt as a prefix, asked in every
    /// mode (in `none` too, where generation goes on), so that refused prompts are
    /// counted the same way in every mode. Absent in records older than this field.
    #[serde(default)]
    pub prompt_refused: bool,
}

/// What a record of `espalier eval` keeps of one generation: how it stopped, its
/// length and speed, the loop's statistics (the sLua records hold the same).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Generation {
    /// Why generation stopped (`None` when it could not start, see the record's
    /// `error`).
    pub stop: Option<StopReason>,
    /// Whether it stopped on its own (EOS or a stop string).
    pub finished: bool,
    /// Tokens generated.
    pub tokens: usize,
    /// Decode tokens per second of this sample.
    pub decode_tps: f64,
    /// Seconds spent decoding (model, constraint, sampling).
    pub decode_s: f64,
    /// Loop statistics (masks, refusals, heals, time in the constraint).
    pub stats: Stats,
}

impl Generation {
    /// The figures of generator `g`, which ran in `timing`.
    pub fn of<C: Constraint>(g: &Generator<C>, timing: &Timing) -> Self {
        let stop = g.stop_reason().cloned();
        Generation {
            finished: stop.as_ref().is_some_and(|s| s.is_finished()),
            stop,
            tokens: timing.decode_tokens,
            decode_tps: timing.decode_tps(),
            decode_s: timing.decode_s,
            stats: g.stats().clone(),
        }
    }
}

/// Totals over the samples of one mode.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Summary {
    /// Data set name.
    pub dataset: String,
    /// Mode.
    pub mode: String,
    /// Problems evaluated.
    pub problems: usize,
    /// Samples per problem.
    pub samples: usize,
    /// Samples that stopped on their own.
    pub finished: usize,
    /// Samples whose prompt + completion does not parse, over all samples (cut off,
    /// refused or finished): the same number as `syntax_errors_all`, kept under the
    /// name of the CLI's contract (issue 12).
    pub syntax_errors: usize,
    /// Samples whose prompt + completion does not parse, over all samples: a sample
    /// cut at the budget or by the repetition guard counts, and so does one whose
    /// prompt the grammar refuses (`refused`), in every mode.
    pub syntax_errors_all: usize,
    /// Samples that stopped on their own and do not parse, refused prompts left out in
    /// every mode (their error is the prompt's; under a constraint they are not
    /// generated at all). The target under a constraint is zero.
    pub syntax_errors_finished: usize,
    /// Samples whose prompt the grammar refuses, in every mode (they stay in every
    /// denominator: `problems`, `samples`, `pass_at_1`).
    pub refused: usize,
    /// Samples that could not be generated (see the records' `error`).
    pub errors: usize,
    /// Samples stopped by the repetition guard.
    pub repetitions: usize,
    /// Mean over problems of the fraction of samples passing the tests.
    pub pass_at_1: f64,
    /// Generated tokens per second over the whole run (all decode time included).
    pub decode_tps: f64,
    /// Tokens generated in all.
    pub tokens: usize,
    /// Seconds spent in the constraint, in all.
    pub constraint_s: f64,
    /// Seconds decoding, in all.
    pub decode_s: f64,
}

impl Summary {
    /// Totals `records` (all of one mode; `samples` per problem).
    pub fn from_records(
        dataset: &str,
        mode: Mode,
        samples: usize,
        records: &[ProblemRecord],
    ) -> Self {
        let mut s = Summary {
            dataset: dataset.into(),
            mode: mode.name().into(),
            samples,
            ..Default::default()
        };
        let mut per_problem: Vec<(&str, usize, usize)> = Vec::new();
        for r in records {
            match per_problem.iter_mut().find(|p| p.0 == r.task_id) {
                Some(p) => p.1 += 1,
                None => per_problem.push((&r.task_id, 1, 0)),
            }
            if matches!(r.test, Some(TestOutcome::Passed)) {
                per_problem.iter_mut().find(|p| p.0 == r.task_id).expect("just added").2 += 1;
            }
            s.finished += r.run.finished as usize;
            s.errors += r.error.is_some() as usize;
            s.repetitions += r.run.stop.as_ref().is_some_and(StopReason::is_repetition) as usize;
            s.refused += r.prompt_refused as usize;
            if r.syntax_error.is_some() {
                s.syntax_errors_all += 1;
                s.syntax_errors_finished += (r.run.finished && !r.prompt_refused) as usize;
            }
            s.tokens += r.run.tokens;
            s.decode_s += r.run.decode_s;
            s.constraint_s += r.run.stats.constraint_s;
        }
        s.syntax_errors = s.syntax_errors_all;
        s.problems = per_problem.len();
        s.pass_at_1 = if per_problem.is_empty() {
            0.0
        } else {
            per_problem.iter().map(|p| p.2 as f64 / p.1 as f64).sum::<f64>()
                / per_problem.len() as f64
        };
        s.decode_tps = if s.decode_s > 0.0 { s.tokens as f64 / s.decode_s } else { 0.0 };
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(
        task: &str,
        mode: Mode,
        finished: bool,
        syntax_error: bool,
        refused: bool,
    ) -> ProblemRecord {
        ProblemRecord {
            task_id: task.into(),
            mode,
            sample: 0,
            completion: String::new(),
            run: Generation { finished, tokens: 1, ..Generation::default() },
            syntax_error: syntax_error.then(|| "invalid syntax (line 1)".to_string()),
            test: (!syntax_error).then_some(TestOutcome::Passed),
            error: None,
            prompt_refused: refused,
        }
    }

    /// A refused prompt is in every denominator and counted the same way in every
    /// mode: a syntax error among all samples, not among finished ones.
    #[test]
    fn refused_prompts_count_the_same_in_every_mode() {
        for (mode, refused_finished) in [(Mode::None, true), (Mode::Mask, false)] {
            let records = [
                record("ok", mode, true, false, false),
                record("cut", mode, false, true, false),
                record("broken", mode, true, true, false),
                // `none` generates from a refused prompt; `mask` refuses it up front.
                record("refused", mode, refused_finished, true, true),
            ];
            let s = Summary::from_records("t", mode, 1, &records);
            assert_eq!((s.problems, s.refused), (4, 1), "{mode}");
            assert_eq!((s.syntax_errors_all, s.syntax_errors_finished), (3, 1), "{mode}");
            assert_eq!(s.syntax_errors, s.syntax_errors_all);
            assert_eq!(s.pass_at_1, 0.25);
        }
    }

    /// A record is one flat JSON object (scripts outside the repository read its
    /// keys), and reads back.
    #[test]
    fn a_record_is_one_flat_object() {
        let v = serde_json::to_value(record("t", Mode::Mask, true, false, false)).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        let want = [
            "completion",
            "decode_s",
            "decode_tps",
            "error",
            "finished",
            "mode",
            "prompt_refused",
            "sample",
            "stats",
            "stop",
            "syntax_error",
            "task_id",
            "test",
            "tokens",
        ];
        assert_eq!(keys, want);
        let back: ProblemRecord = serde_json::from_value(v).unwrap();
        assert!(back.run.finished && back.run.tokens == 1 && back.run.stop.is_none());
    }

    /// The checked-in MBPP run (records older than `prompt_refused`) gives its
    /// checked-in summary again.
    #[test]
    fn checked_in_records_give_their_summary() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../results/eval/");
        let lines = std::fs::read_to_string(format!("{dir}mbpp-greedy-200.jsonl")).unwrap();
        let records: Vec<ProblemRecord> =
            lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let summary =
            std::fs::read_to_string(format!("{dir}mbpp-greedy-200.summary.jsonl")).unwrap();
        let last: serde_json::Value =
            serde_json::from_str(summary.lines().last().unwrap()).unwrap();
        for want in last["by_mode"].as_array().unwrap() {
            let mode: Mode = want["mode"].as_str().unwrap().parse().unwrap();
            let mine: Vec<ProblemRecord> =
                records.iter().filter(|r| r.mode == mode).cloned().collect();
            let got = Summary::from_records("mbpp", mode, 1, &mine);
            for (key, value) in [
                ("problems", got.problems),
                ("finished", got.finished),
                ("syntax_errors", got.syntax_errors),
                ("syntax_errors_finished", got.syntax_errors_finished),
                ("errors", got.errors),
            ] {
                assert_eq!(want[key].as_u64(), Some(value as u64), "{mode} {key}");
            }
            assert!((want["pass_at_1"].as_f64().unwrap() - got.pass_at_1).abs() < 1e-12, "{mode}");
        }
    }
}
