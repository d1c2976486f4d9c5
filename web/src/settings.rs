//! The user's generation settings (constraint mode, sampling, budget) and how they
//! map onto [`espalier_decode::GenerateConfig`].

use espalier_decode::{prompt::python_stop_strings, GenerateConfig, Mode, SamplingConfig};

use crate::lang::Lang;

/// What the controls hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// How the constraint is consulted.
    pub mode: Mode,
    /// Sampling temperature; 0 means greedy.
    pub temperature: f32,
    /// Keep the k most likely tokens (0 = all).
    pub top_k: usize,
    /// Nucleus sampling mass (1 = off).
    pub top_p: f32,
    /// Seed of the sampler's RNG.
    pub seed: u64,
    /// Token budget.
    pub max_tokens: usize,
    /// sLua: prompt with the whole language document and API (slow on the CPU).
    pub full_prompt: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self { mode: Mode::Mask, temperature: 0.0, top_k: 40, top_p: 0.95, seed: 7, max_tokens: 160, full_prompt: false }
    }
}

impl Settings {
    /// The decode configuration for one playground run: traces on (the visualizer
    /// draws them), history on (Back), stop at the closing code fence (and, for
    /// Python, at the next top-level statement after the function).
    pub fn to_config(&self, lang: Lang) -> GenerateConfig {
        let stop_strings = match lang {
            Lang::Python => python_stop_strings(),
            Lang::SLua => vec!["```".to_owned()],
        };
        GenerateConfig {
            mode: self.mode,
            sampling: SamplingConfig {
                temperature: self.temperature.max(0.0),
                top_k: self.top_k,
                top_p: self.top_p.clamp(0.0, 1.0),
                seed: self.seed,
            },
            max_tokens: self.max_tokens,
            stop_strings,
            trace: true,
            trace_top: 10,
            history: true,
            ..GenerateConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_keeps_traces_and_history() {
        let s = Settings { temperature: -1.0, top_p: 3.0, ..Settings::default() };
        let c = s.to_config(Lang::SLua);
        assert!(c.trace && c.history);
        assert_eq!(c.sampling.temperature, 0.0);
        assert_eq!(c.sampling.top_p, 1.0);
        assert_eq!(c.stop_strings, vec!["```".to_owned()]);
        assert!(s.to_config(Lang::Python).stop_strings.iter().any(|x| x == "\ndef "));
    }
}
