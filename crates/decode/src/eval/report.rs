//! What `espalier eval` writes: one [`ProblemRecord`] per generated sample (JSON
//! lines in `--out FILE`) and a [`Summary`] per mode (the last stdout line).

use serde::{Deserialize, Serialize};

use crate::eval::TestOutcome;
use crate::{Mode, Stats, StopReason};

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
    /// Why generation stopped (`None` when it could not start, see `error`).
    pub stop: Option<StopReason>,
    /// Whether it stopped on its own (EOS or a stop string).
    pub finished: bool,
    /// Tokens generated.
    pub tokens: usize,
    /// CPython's syntax error for prompt + completion, if any.
    pub syntax_error: Option<String>,
    /// The tests' outcome (`None` when there were no tests to run).
    pub test: Option<TestOutcome>,
    /// Decode tokens per second of this sample.
    pub decode_tps: f64,
    /// Seconds spent decoding (model, constraint, sampling).
    pub decode_s: f64,
    /// Loop statistics (masks, refusals, heals, time in the constraint).
    pub stats: Stats,
    /// Why the sample could not be generated (e.g. the grammar refused the prompt).
    pub error: Option<String>,
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
    /// Samples whose prompt + completion does not parse.
    pub syntax_errors: usize,
    /// Of those, how many had stopped on their own (the target is zero).
    pub syntax_errors_finished: usize,
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
    pub fn from_records(dataset: &str, mode: Mode, samples: usize, records: &[ProblemRecord]) -> Self {
        let mut s = Summary { dataset: dataset.into(), mode: mode.name().into(), samples, ..Default::default() };
        let mut per_problem: Vec<(&str, usize, usize)> = Vec::new();
        for r in records {
            match per_problem.iter_mut().find(|p| p.0 == r.task_id) {
                Some(p) => p.1 += 1,
                None => per_problem.push((&r.task_id, 1, 0)),
            }
            if matches!(r.test, Some(TestOutcome::Passed)) {
                per_problem.iter_mut().find(|p| p.0 == r.task_id).expect("just added").2 += 1;
            }
            s.finished += r.finished as usize;
            s.errors += r.error.is_some() as usize;
            s.repetitions += r.stop.as_ref().is_some_and(StopReason::is_repetition) as usize;
            if r.syntax_error.is_some() {
                s.syntax_errors += 1;
                s.syntax_errors_finished += r.finished as usize;
            }
            s.tokens += r.tokens;
            s.decode_s += r.decode_s;
            s.constraint_s += r.stats.constraint_s;
        }
        s.problems = per_problem.len();
        s.pass_at_1 = if per_problem.is_empty() {
            0.0
        } else {
            per_problem.iter().map(|p| p.2 as f64 / p.1 as f64).sum::<f64>() / per_problem.len() as f64
        };
        s.decode_tps = if s.decode_s > 0.0 { s.tokens as f64 / s.decode_s } else { 0.0 };
        s
    }
}
