//! A step's logits on the device with the step's answers read back before the step
//! ([`PrefetchedLogits`]): what an asynchronous model (WebGPU in the browser, which
//! cannot block on a read-back) hands the sans-IO decode loop. [`step_on_device`] runs
//! one step that way:
//!
//! 1. the forward pass is recorded (the caller: `Llama::forward_logits`) and, when the
//!    step has CPU work to prepare ([`Generator::has_work_to_prepare`]), submitted;
//! 2. the step is prepared on the CPU meanwhile: its mask ([`Generator::prepare`]);
//!    an unconstrained step has none, and its pass goes to the device with the read;
//! 3. one read-back brings the draw list under that mask ([`DRAW_DEPTH`] ids for greedy
//!    decoding: the draw even after a few refusals; [`SAMPLE_DEPTH`] when sampling: the
//!    sampler's candidates) and the trace's candidates ([`TopList`]s found on the device,
//!    a few hundred bytes instead of the whole vector);
//! 4. the step runs on them; a step that asks for more (a heal's new mask, more
//!    refusals than the list holds, a draw whose candidates run past the list) is given
//!    back by the loop ([`DecodeError::LogitsNotReady`]), the whole vector is read, and
//!    the step goes on with it: the same choice as on host logits, only slower.

use std::time::Duration;

use espalier_constraint::{Constraint, TokenSet};
use espalier_decode::sampler::top_candidates;
use espalier_decode::{
    DecodeError, DrawMass, Generator, Logits, LogitsError, Shortlist, StepOutcome,
};
use espalier_model::{DeviceLogits, ListQuery, ModelError, TopList};

use crate::device_shortlist::{device_mass, shortlist_of};
use web_time::Instant;

/// Ids in the draw list under the step's mask for greedy decoding: the draw when fewer
/// than this many candidates are refused (a sound mask refuses almost none).
pub const DRAW_DEPTH: usize = 8;

/// Ids in the draw list when sampling: the sampler's candidates whenever fewer are
/// within its floor (`NEGLIGIBLE_NATS` temperature-scaled nats below the best) or
/// top-k keeps only listed ids ([`espalier_decode::Sampler::sample_shortlist`]).
pub const SAMPLE_DEPTH: usize = TopList::MAX_K;

/// Device logits with the lists a greedy step asks for already on the host.
pub struct PrefetchedLogits {
    device: DeviceLogits,
    /// The words of the mask the draw list was found under (`None`: every id).
    mask: Option<Vec<u64>>,
    /// The best allowed ids under `mask`.
    draw: TopList,
    /// The best ids of all (the trace's candidates); the draw list when `mask` is none.
    top: Option<TopList>,
    /// Whether the whole vector was read ([`PrefetchedLogits::read_host`]).
    host_read: bool,
}

impl PrefetchedLogits {
    /// Reads back, in one read-back, the draw list of `depth` ids under `mask` over ids
    /// `0..n` (with the sum of `mass`'s weights, when sampling asks for it) and the
    /// `trace_top` best ids of all (none when 0).
    pub async fn read(
        mut device: DeviceLogits,
        n: usize,
        mask: Option<&TokenSet>,
        depth: usize,
        trace_top: usize,
        mass: Option<DrawMass>,
    ) -> Result<Self, ModelError> {
        let trace_top = trace_top.min(TopList::MAX_K);
        let draw = ListQuery::new(mask.map(TokenSet::words), depth.clamp(1, TopList::MAX_K));
        let mut queries = vec![mass.map_or(draw, |m| draw.with_mass(device_mass(m)))];
        // The trace's probabilities are the softmax's: with a draw mass the trace's list
        // is a list of its own.
        match (mask.is_some() || mass.is_some(), trace_top) {
            (_, 0) => {}
            (false, k) => queries[0].k = queries[0].k.max(k),
            (true, k) => queries.push(ListQuery::new(None, k)),
        }
        let mut lists = device.tops_async(n, &queries).await?;
        let top = match (queries.len(), trace_top) {
            (_, 0) => None,
            (1, _) => Some(lists[0].clone()),
            _ => lists.pop(),
        };
        let draw = lists.swap_remove(0);
        Ok(Self { device, mask: mask.map(|m| m.words().to_vec()), draw, top, host_read: false })
    }

    /// Reads the whole vector (after a step came back [`DecodeError::LogitsNotReady`]).
    pub async fn read_host(&mut self) -> Result<(), ModelError> {
        self.device.host_async().await?;
        self.host_read = true;
        Ok(())
    }

    /// The list that answers a draw under `allowed`, if one was read.
    fn list_for(&self, allowed: Option<&TokenSet>) -> Option<&TopList> {
        match (allowed, &self.mask) {
            (None, None) => Some(&self.draw),
            (None, Some(_)) => self.top.as_ref(),
            (Some(a), Some(m)) if a.words() == m.as_slice() => Some(&self.draw),
            _ => None,
        }
    }
}

impl Logits for PrefetchedLogits {
    fn len(&self) -> usize {
        self.device.len()
    }

    fn argmax(
        &mut self,
        n: usize,
        allowed: Option<&TokenSet>,
        refused: &[u32],
    ) -> Result<Option<u32>, LogitsError> {
        if self.host_read {
            return self.device.argmax(n, allowed.map(TokenSet::words), refused).map_err(failed);
        }
        self.list_for(allowed)
            .and_then(|list| list.first_not_in(refused))
            .ok_or(LogitsError::NotReady)
    }

    fn shortlist(
        &mut self,
        n: usize,
        allowed: Option<&TokenSet>,
        refused: &[u32],
        mass: Option<DrawMass>,
    ) -> Result<Option<Shortlist>, LogitsError> {
        if self.host_read {
            return Ok(None);
        }
        Ok(self.list_for(allowed).map(|list| shortlist_of(list, refused, mass, n)))
    }

    fn host(&mut self) -> Result<&[f32], LogitsError> {
        match self.host_read {
            true => self.device.host().map_err(failed),
            false => Err(LogitsError::NotReady),
        }
    }

    fn top(&mut self, n: usize, k: usize) -> Result<Vec<(u32, f32)>, LogitsError> {
        if let Some(top) = self.top.as_ref().filter(|t| k <= t.k) {
            return Ok(top.probabilities().into_iter().take(k).collect());
        }
        let host = self.host()?;
        Ok(top_candidates(&host[..n.min(host.len())], k))
    }
}

fn failed(e: ModelError) -> LogitsError {
    LogitsError::Failed(e.to_string())
}

/// A step run by [`step_on_device`], with where its time went.
pub struct DeviceStep {
    /// The step's outcome.
    pub outcome: StepOutcome,
    /// Waiting for the lists after the step was prepared (the forward pass's time not
    /// hidden behind the CPU's work), plus the whole vector's read when it was needed.
    pub waited: Duration,
    /// Whether the whole vector had to be read.
    pub read_host: bool,
}

/// One step of `generator` on `logits` just recorded by the model (see the module):
/// submits the pass and prepares the step while the device computes it (the pass goes
/// with the read when there is nothing to prepare), reads the lists back, steps, and
/// falls back to the whole vector when the step asks for more. `recorded` is the time
/// the model took to record and submit the pass, added to the step's model time.
pub async fn step_on_device<C: Constraint>(
    generator: &mut Generator<C>,
    logits: DeviceLogits,
    recorded: Duration,
) -> Result<DeviceStep, String> {
    if generator.has_work_to_prepare() {
        logits.submit().map_err(|e| e.to_string())?;
    }
    generator.prepare().map_err(|e| e.to_string())?;
    let n = generator.vocab().len();
    let config = generator.config();
    let trace_top = if config.trace { config.trace_top } else { 0 };
    let depth = if config.sampling.is_greedy() { DRAW_DEPTH } else { SAMPLE_DEPTH };
    let start = Instant::now();
    let mask = generator.prepared_mask();
    let mass = config.sampling.draw_mass();
    let mut logits = PrefetchedLogits::read(logits, n, mask, depth, trace_top, mass)
        .await
        .map_err(|e| e.to_string())?;
    let mut waited = start.elapsed();
    let mut read_host = false;
    let outcome = match generator.step_logits(&mut logits, recorded + waited) {
        Err(DecodeError::LogitsNotReady) => {
            let start = Instant::now();
            logits.read_host().await.map_err(|e| e.to_string())?;
            waited += start.elapsed();
            read_host = true;
            generator.step_logits(&mut logits, recorded + waited)
        }
        other => other,
    }
    .map_err(|e| format!("decode step failed: {e}"))?;
    Ok(DeviceStep { outcome, waited, read_host })
}

#[cfg(all(test, feature = "ndarray", not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::{load, prepare, STORE_DIR};
    use espalier_decode::{
        run, GenerateConfig, Kits, Lang, LanguageModel, Mode, SamplingConfig, Task,
    };

    use espalier_testkit::ready;

    /// SmolLM2 writing Python under the mask, with traces: stepped on prefetched lists
    /// (as the browser's WebGPU steps are) it writes what it writes on host logits, with
    /// the same trace (candidates, probabilities to rounding, refusals), greedy and
    /// sampling (plain temperature, top-k, top-p): drawn from the lists where they decide
    /// the draw, from the whole vector where they cannot.
    #[test]
    fn steps_on_prefetched_lists_choose_as_steps_on_host_logits() {
        let mut loaded = load(None, "ndarray").expect("the model (scripts/fetch-model.sh)");
        let mut kits = Kits::new(loaded.vocab.clone()).with_store_dir(STORE_DIR);
        let python = Lang::from_name("python").unwrap();
        let task = Task::new(Some(python), Mode::Mask, python.prompting().sample_request());
        for (temperature, top_k, top_p, seed) in
            [(0.0, 0, 1.0, 0), (0.8, 0, 1.0, 7), (0.5, 20, 1.0, 3), (1.0, 0, 0.9, 5)]
        {
            let config = GenerateConfig {
                max_tokens: 48,
                trace: true,
                sampling: SamplingConfig { temperature, top_k, top_p, seed },
                ..GenerateConfig::default()
            };
            let p = prepare(&loaded.tokenizer, &mut kits, &task, config.clone()).unwrap();
            let mut host =
                Generator::new(loaded.vocab.clone(), p.constraint, &p.ids, p.config).unwrap();
            loaded.model.truncate(0);
            let mut host_steps = Vec::new();
            run(&mut host, &mut loaded.model, |_, o| host_steps.push(o.clone())).unwrap();

            let p = prepare(&loaded.tokenizer, &mut kits, &task, config).unwrap();
            let mut late =
                Generator::new(loaded.vocab.clone(), p.constraint, &p.ids, p.config).unwrap();
            loaded.model.truncate(0);
            let mut read_host = 0;
            let mut late_steps = Vec::new();
            while let Some(feed) = late.next_input() {
                loaded.model.truncate(feed.keep);
                let tokens = feed.tokens.to_vec();
                let logits = loaded.model.forward_device(&tokens).unwrap();
                let step = ready(step_on_device(&mut late, logits, Duration::ZERO)).unwrap();
                read_host += usize::from(step.read_host);
                late_steps.push(step.outcome);
            }
            assert!(
                host.tokens().len() >= 3,
                "{:?} {:?} {:?}",
                host.text(),
                host.stop_reason(),
                host.tokens()
            );
            assert_eq!(late.tokens(), host.tokens(), "temperature {temperature}");
            assert_eq!(late_steps.len(), host_steps.len());
            for (i, (a, b)) in late_steps.iter().zip(&host_steps).enumerate() {
                let (ta, tb) = (a.trace.as_ref().unwrap(), b.trace.as_ref().unwrap());
                assert_eq!(
                    (a.token, a.how, &ta.refused, ta.mask_size),
                    (b.token, b.how, &tb.refused, tb.mask_size),
                    "step {i}"
                );
                let ids = |t: &espalier_decode::StepTrace| {
                    t.candidates.iter().map(|c| (c.id, c.allowed)).collect::<Vec<_>>()
                };
                assert_eq!(ids(ta), ids(tb), "step {i}: candidates");
                for (x, y) in ta.candidates.iter().zip(&tb.candidates) {
                    assert!(
                        (x.prob - y.prob).abs() <= 1e-6 * (1.0 + y.prob),
                        "step {i}: {} vs {}",
                        x.prob,
                        y.prob
                    );
                }
            }
            // Greedy under a sound mask: every step drawn from the lists; top-k sampling
            // too (its 20 candidates are in the 64-deep list); plain temperature whenever
            // its draw lands among the listed ids, which the list's total decides (0 of
            // 18 measured; 16 of 18 read the vector before the total). Top-p reads the
            // vector when its cut lies past the list (7 of 14 at t 1, p 0.9): for it the
            // point is the equality above.
            let steps = late_steps.len();
            eprintln!(
                "t {temperature} top-k {top_k} top-p {top_p}: {read_host} of {steps} steps read the vector"
            );
            if temperature == 0.0 || top_k > 0 {
                assert_eq!(read_host, 0, "{read_host} of {steps} steps read the whole vector");
            }
            if top_k == 0 && top_p == 1.0 && temperature > 0.0 {
                assert!(read_host * 4 <= steps, "{read_host} of {steps} steps read the vector");
            }
        }
    }
}
