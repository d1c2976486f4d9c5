//! The plain finishing mask's cost for `espalier bench mask --finishing`: at the
//! teacher-forced steps of the files, the grammar constraint's finishing mask
//! ([`GrammarConstraint::finishing_mask`], the mask the decoder's wrap-up narrows to
//! when the token budget runs low or the repetition guard fires) is timed on the
//! thread's CPU clock and on the wall clock, and checked against the step's exact mask.
//!
//! A wrap-up step pays the ordinary mask and then this call (which computes its own
//! exact mask, then scores every allowed token), so this is the extra cost of a
//! wrap-up step over an ordinary one. Fed with the texts of real generations (prompt +
//! completion of an evaluation run's records), every timed state is one the decoder
//! went through.
//!
//! The constraints of all files share one cost cache ([`CostCache`], as the decoder's
//! kit shares one by every request) unless `--finishing-fresh-cache`; the language's
//! cost tables are built before the first mask and timed apart (`cost_tables_cpu_ms`).
//!
//! The JSON object (`finishing` in `bench mask`'s last line): `steps`, `every`,
//! `shared_cache`, `cache_entries` (at the end), `cost_tables_cpu_ms`,
//! `p50_us` / `p99_us` / `max_us` (wall), `cpu_p50_us` / `cpu_p99_us` / `cpu_max_us` /
//! `cpu_mean_us`, `incomplete_steps` with `incomplete_cpu_p50_us` / `incomplete_cpu_p99_us`
//! (the same over the steps whose text was not a complete program: there the mask is
//! EOS alone at no cost, and a prompt of Go comments between declarations is mostly
//! such steps), `steered` (steps whose every mask token lowers the remaining cost, or
//! the text was complete and the mask held EOS alone), `no_plan` (the cost model found
//! no way to a finish: the mask falls back to the allowed tokens), `mean_size`,
//! `outside_exact` (steps whose finishing mask held a token the exact mask refused: a
//! fault; only checked under `--strategy exact`, and EOS is left out of the comparison
//! because the exact mask's EOS is set by the constraint, not the trie walk), and
//! `worst` (the slowest steps, with the text before them).

use espalier_constraint::timing::percentile;
use espalier_constraint::{Constraint, CostCache, GrammarConstraint, TokenSet, Vocab};
use espalier_grammar::Language;

use crate::bench_clock::{cpu_timed, ms, timed};

/// One timed finishing mask.
struct Sample {
    wall_us: f64,
    cpu_us: Option<f64>,
    /// Whether the text was a complete program (the mask is then EOS alone, at no cost).
    complete: bool,
    /// File and byte offset of the step, for the slowest ones.
    file: usize,
    offset: usize,
}

/// The finishing masks timed so far.
pub struct FinishingTimes {
    every: usize,
    /// The cost cache every file's constraint shares (`None`: each keeps its own).
    cache: Option<CostCache>,
    /// CPU time building the language's cost tables (before the first mask).
    tables_cpu_ms: f64,
    samples: Vec<Sample>,
    steered: usize,
    no_plan: usize,
    size_sum: usize,
    outside_exact: usize,
    mask: TokenSet,
}

impl FinishingTimes {
    /// Times the finishing mask at every `every`-th step (1: every step); `shared`:
    /// the constraints [`Self::attach`]ed share one cost cache, as a kit's do. Builds
    /// `lang`'s cost tables first (timed apart: a kit's setup).
    pub fn new(lang: &Language, vocab: &Vocab, every: usize, shared: bool) -> Self {
        let (_, tables_cpu_ns) = cpu_timed(|| lang.completion_costs());
        let tables_cpu_ms = tables_cpu_ns.map_or(-1.0, ms);
        FinishingTimes {
            every: every.max(1),
            cache: shared.then(CostCache::new),
            tables_cpu_ms,
            samples: Vec::new(),
            steered: 0,
            no_plan: 0,
            size_sum: 0,
            outside_exact: 0,
            mask: TokenSet::empty(vocab.len()),
        }
    }

    /// `c` with the run's shared cost cache, if there is one, else a fresh cache of
    /// its own (every context costed from scratch).
    pub fn attach(&self, c: GrammarConstraint) -> GrammarConstraint {
        c.with_cost_cache(self.cache.clone().unwrap_or_default())
    }

    /// Times `c`'s finishing mask at step `step` of file `file` (at byte `offset`),
    /// when the step is one of those sampled; `exact` is the step's exact mask, when
    /// the bench computed one.
    pub fn time(
        &mut self,
        c: &mut GrammarConstraint,
        vocab: &Vocab,
        exact: Option<&TokenSet>,
        step: usize,
        file: usize,
        offset: usize,
    ) {
        if !step.is_multiple_of(self.every) {
            return;
        }
        let complete = c.is_complete();
        let (found, span) = timed(|| c.finishing_mask(vocab, &mut self.mask));
        let (wall_us, cpu_us) = (span.wall_s * 1e6, span.cpu_us());
        self.samples.push(Sample { wall_us, cpu_us, complete, file, offset });
        match found {
            Some(f) => {
                self.steered += usize::from(f.steered);
                self.no_plan += usize::from(f.cost.is_none());
            }
            None => self.no_plan += 1,
        }
        self.size_sum += self.mask.count();
        if let Some(exact) = exact {
            let eos = vocab.eos() as usize;
            if self.mask.iter().any(|id| id != eos && !exact.contains(id)) {
                self.outside_exact += 1;
            }
        }
    }

    /// The JSON object (see the module doc); `texts[file]` is the text of each file and
    /// `names[file]` its name, for the `worst` slowest steps.
    pub fn summary(&self, texts: &[String], names: &[String], worst: usize) -> serde_json::Value {
        let mut wall: Vec<f64> = self.samples.iter().map(|s| s.wall_us).collect();
        wall.sort_by(f64::total_cmp);
        let mut cpu: Vec<f64> = self.samples.iter().filter_map(|s| s.cpu_us).collect();
        cpu.sort_by(f64::total_cmp);
        let mut busy: Vec<f64> =
            self.samples.iter().filter(|s| !s.complete).filter_map(|s| s.cpu_us).collect();
        busy.sort_by(f64::total_cmp);
        let n = self.samples.len();
        let key = |s: &Sample| s.cpu_us.unwrap_or(s.wall_us);
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&x, &y| key(&self.samples[y]).total_cmp(&key(&self.samples[x])));
        order.truncate(worst);
        let worst: Vec<serde_json::Value> = order
            .iter()
            .map(|&i| {
                let s = &self.samples[i];
                let text = texts.get(s.file).map_or(&b""[..], |t| t.as_bytes());
                let at = s.offset.min(text.len());
                let before = String::from_utf8_lossy(&text[at.saturating_sub(60)..at]).into_owned();
                eprintln!("finishing worst: {:.0} us CPU, {:.0} us wall, {} byte {at}: {before:?} |", s.cpu_us.unwrap_or(f64::NAN), s.wall_us, names.get(s.file).map_or("?", |n| n.as_str()));
                serde_json::json!({"cpu_us": s.cpu_us.map(round1), "us": round1(s.wall_us), "file": names.get(s.file), "offset": at, "before": before})
            })
            .collect();
        serde_json::json!({
            "steps": n,
            "every": self.every,
            "shared_cache": self.cache.is_some(),
            "cache_entries": self.cache.as_ref().map(|c| c.entries()),
            "cost_tables_cpu_ms": round1(self.tables_cpu_ms),
            "p50_us": round1(percentile(&wall, 50.0)),
            "p99_us": round1(percentile(&wall, 99.0)),
            "max_us": round1(wall.last().copied().unwrap_or(0.0)),
            "cpu_p50_us": round1(percentile(&cpu, 50.0)),
            "cpu_p99_us": round1(percentile(&cpu, 99.0)),
            "cpu_max_us": round1(cpu.last().copied().unwrap_or(0.0)),
            "cpu_mean_us": round1(if cpu.is_empty() { 0.0 } else { cpu.iter().sum::<f64>() / cpu.len() as f64 }),
            "incomplete_steps": self.samples.iter().filter(|s| !s.complete).count(),
            "incomplete_cpu_p50_us": round1(percentile(&busy, 50.0)),
            "incomplete_cpu_p99_us": round1(percentile(&busy, 99.0)),
            "steered": self.steered,
            "no_plan": self.no_plan,
            "mean_size": self.size_sum.checked_div(n).unwrap_or(0),
            "outside_exact": self.outside_exact,
            "worst": worst,
        })
    }
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use espalier_constraint::{MaskKit, Strategy};

    /// Over a small Python program: one sample per sampled step, the finishing mask
    /// checked against the exact mask (a mask that refuses everything is caught), and
    /// at the complete end the mask is EOS alone and counts as steered.
    #[test]
    fn times_every_sampled_step_and_checks_against_the_exact_mask() {
        let words = [
            "<eos>", "<bos>", "def", " f", "(x", "):", "\n", "    ", "return", " x", " +", " 1",
            "\n\n",
        ];
        let vocab = Vocab::new(words.iter().map(|w| w.as_bytes().to_vec()).collect(), &[0, 1], 0);
        let py = espalier_grammar::python().unwrap();
        let text: [u32; 9] = [2, 3, 4, 5, 6, 7, 8, 9, 12];
        let run = |every: usize, refuse_all: bool| {
            let kit = MaskKit::for_vocab(py.clone(), &vocab);
            let mut c = GrammarConstraint::new(&kit, Strategy::Exact, "python-lr");
            let mut f = FinishingTimes::new(&py, &vocab, every, true);
            c = f.attach(c);
            let mut exact = TokenSet::empty(vocab.len());
            let mut incomplete = 0;
            for (step, &id) in text.iter().enumerate() {
                incomplete += usize::from(!c.is_complete());
                c.fill_mask(&vocab, &mut exact);
                assert!(exact.contains(id as usize), "step {step}");
                if refuse_all {
                    exact.clear();
                }
                f.time(&mut c, &vocab, Some(&exact), step, 0, 0);
                c.commit(vocab.bytes(id)).unwrap();
            }
            f.time(&mut c, &vocab, None, 0, 0, 0);
            assert!(c.is_complete());
            assert_eq!(f.mask.iter().collect::<Vec<_>>(), vec![0], "complete: EOS alone");
            (f.summary(&[], &[], 1), incomplete)
        };
        let (all, incomplete) = run(1, false);
        assert!(
            incomplete >= 6,
            "{incomplete}: the empty text and the ends of lines may be complete, the rest not"
        );
        assert_eq!(all["steps"], 10);
        assert_eq!(all["incomplete_steps"], incomplete as u64);
        assert_eq!(all["outside_exact"], 0);
        assert_eq!(all["no_plan"], 0);
        assert!(all["steered"].as_u64().unwrap() >= 1);
        assert_eq!(all["worst"].as_array().unwrap().len(), 1);
        assert_eq!(run(4, false).0["steps"], 4, "steps 0, 4, 8 and the end");
        assert_eq!(
            run(1, true).0["outside_exact"],
            incomplete,
            "every finishing mask but EOS alone lies outside an empty exact mask"
        );
    }
}
