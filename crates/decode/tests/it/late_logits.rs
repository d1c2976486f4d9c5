//! Logits that answer only what was read back before the step ([`LogitsError::NotReady`]
//! otherwise), as WebGPU's in the browser: the step is prepared first (its mask on the
//! CPU while the model runs), the draw comes from a short list under that mask, and a
//! step that asks for more is given back unchanged, the whole vector read, and stepped
//! again. Whatever the list's depth, the generation must equal the one on host logits:
//! the same tokens, how each was chosen, the same counts of masks, heals and refusals.

use crate::common;

use std::sync::Arc;

use common::{id, vocab, HashModel, Targets};
use espalier_constraint::TokenSet;
use espalier_decode::sampler::argmax;
use espalier_decode::{
    run, DecodeError, GenerateConfig, Generator, LanguageModel, Logits, LogitsError, Mode,
    SamplingConfig, StepOutcome,
};

const TOKENS: &[&str] = &[
    "a", "b", "c", "ab", "abc", "foo", "foo(", "(", "bar", ")", "(bar)", "x", "\n", " ", "y", "fo",
    "o", "f", "r",
];

/// Host logits that answer a draw only under the prepared mask with fewer than `depth`
/// refusals (the list a device would have read back), and nothing else until `read`.
struct LateLogits {
    logits: Vec<f32>,
    mask: Option<Vec<u64>>,
    depth: usize,
    read: bool,
}

impl Logits for LateLogits {
    fn len(&self) -> usize {
        self.logits.len()
    }

    fn argmax(
        &mut self,
        n: usize,
        allowed: Option<&TokenSet>,
        refused: &[u32],
    ) -> Result<Option<u32>, LogitsError> {
        let listed = allowed.map(|a| a.words().to_vec()) == self.mask && refused.len() < self.depth;
        if !self.read && !listed {
            return Err(LogitsError::NotReady);
        }
        Ok(argmax(&self.logits[..n], |id| {
            allowed.is_none_or(|m| m.contains(id as usize)) && !refused.contains(&id)
        }))
    }

    fn host(&mut self) -> Result<&[f32], LogitsError> {
        match self.read {
            true => Ok(&self.logits),
            false => Err(LogitsError::NotReady),
        }
    }
}

/// What a step's trace says, less its times.
fn seen(o: &StepOutcome) -> String {
    let t = o.trace.as_ref();
    format!(
        "{:?} {:?} {:?}",
        o.token,
        o.how,
        t.map(|t| (&t.candidates, &t.refused, t.mask_size, &t.forced_prefix, &t.text, t.wrap_up))
    )
}

/// Drives `g` to its end on [`LateLogits`] of `depth`; returns how many steps were
/// given back, and what each step's trace said.
fn run_late(
    g: &mut Generator<Targets>,
    model: &mut HashModel,
    depth: usize,
) -> (usize, Vec<String>) {
    let mut given_back = 0;
    let mut steps = Vec::new();
    while let Some(feed) = g.next_input() {
        model.truncate(feed.keep);
        let logits = model.forward(feed.tokens).unwrap();
        g.prepare().unwrap();
        let mask = g.prepared_mask().map(|m| m.words().to_vec());
        let mut late = LateLogits { logits, mask, depth, read: false };
        let outcome = match g.step_logits(&mut late, Default::default()) {
            Err(DecodeError::LogitsNotReady) => {
                given_back += 1;
                late.read = true;
                g.step_logits(&mut late, Default::default()).unwrap()
            }
            other => other.unwrap(),
        };
        steps.push(seen(&outcome));
    }
    (given_back, steps)
}

fn counts(g: &Generator<Targets>) -> [usize; 5] {
    let s = g.stats();
    [s.steps, s.masks, s.refusals, s.heals, s.wrap_up_steps]
}

#[test]
fn a_step_given_back_and_retried_chooses_as_on_host_logits() {
    let v = Arc::new(vocab(TOKENS));
    let targets = ["abcabc", "foo(bar)", "x y"];
    // The model loves EOS (refused until the text is complete) and "foo(" (healed back
    // to "foo" at the boundary).
    let prefer = [("<eos>", 6.0), ("foo(", 9.0)];
    let prefer: Vec<(u32, f32)> = prefer.iter().map(|&(t, b)| (id(&v, t), b)).collect();
    let mut given_back = 0;
    let mut cases = 0;
    for mode in [Mode::Mask, Mode::Rejection, Mode::Syncode, Mode::None] {
        for (temperature, seed) in [(0.0, 0), (1.0, 1), (1.0, 2), (0.7, 3)] {
            for trace in [false, true] {
                for depth in [1, 8] {
                    let c = || Targets::new(&targets).with_boundaries(&[3]);
                    let config = GenerateConfig {
                        mode,
                        max_tokens: 30,
                        trace,
                        sampling: SamplingConfig { temperature, top_k: 0, top_p: 1.0, seed },
                        ..GenerateConfig::default()
                    };
                    let mut host_model = HashModel::new(v.len());
                    host_model.prefer = prefer.clone();
                    let mut host = Generator::new(v.clone(), c(), &[1], config.clone()).unwrap();
                    let mut host_steps = Vec::new();
                    run(&mut host, &mut host_model, |_, o| host_steps.push(seen(o))).unwrap();
                    let mut late_model = HashModel::new(v.len());
                    late_model.prefer = prefer.clone();
                    let mut late = Generator::new(v.clone(), c(), &[1], config).unwrap();
                    let (back, late_steps) = run_late(&mut late, &mut late_model, depth);
                    given_back += back;
                    let case =
                        format!("{mode} t {temperature} seed {seed} trace {trace} depth {depth}");
                    assert_eq!(late.tokens(), host.tokens(), "{case}");
                    assert_eq!(late_steps, host_steps, "{case}");
                    assert_eq!(late.hows(), host.hows(), "{case}");
                    assert_eq!(late.stop_reason(), host.stop_reason(), "{case}");
                    assert_eq!(counts(&late), counts(&host), "{case}");
                    cases += 1;
                }
            }
        }
    }
    // The fallback ran (temperature, traces, refusals past a depth of 1, heals).
    assert!(given_back > cases, "{given_back} steps given back in {cases} generations");
}

#[test]
fn prepare_is_idempotent_and_a_rewind_drops_the_prepared_step() {
    let v = Arc::new(vocab(TOKENS));
    let config = GenerateConfig { mode: Mode::Mask, history: true, ..GenerateConfig::default() };
    let mut g = Generator::new(v.clone(), Targets::new(&["abc"]), &[1], config).unwrap();
    g.prepare().unwrap();
    let first = g.prepared_mask().map(|m| m.count());
    g.prepare().unwrap();
    assert_eq!(g.prepared_mask().map(|m| m.count()), first);
    assert_eq!(g.stats().steps, 1, "prepared once");
    let mut model = HashModel::new(v.len());
    let logits = model.forward(&[1]).unwrap();
    g.step(&logits, Default::default()).unwrap();
    assert_eq!(g.stats().steps, 1, "the step used what was prepared");
    assert!(g.prepared_mask().is_none(), "nothing prepared after the step");
    g.prepare().unwrap();
    assert!(g.prepared_mask().is_some());
    g.rewind(0).unwrap();
    assert!(g.prepared_mask().is_none(), "a rewind drops the prepared step");
    assert_eq!(g.stats().steps, 0);
}
