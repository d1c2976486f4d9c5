//! The user's generation settings (constraint mode, sampling, budget) and how they
//! map onto [`espalier_decode::GenerateConfig`].

use espalier_decode::{GenerateConfig, Mode, SamplingConfig};

/// What the controls hold (sent to the worker with each new generation).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// Prompt with the language's full instruction (sLua: the whole language document
    /// and API; slow on the CPU).
    pub full_prompt: bool,
    /// Wrap up when this many tokens of the budget are left: from then on the mask
    /// keeps only the tokens that lead towards the shortest completion, so the script
    /// closes instead of running out of budget mid-statement (0 = off; only languages
    /// whose constraint has a finishing mask, e.g. sLua, offer it).
    pub wrap_up: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            mode: Mode::Mask,
            temperature: 0.0,
            top_k: 40,
            top_p: 0.95,
            seed: 7,
            max_tokens: 160,
            full_prompt: false,
            wrap_up: 48,
        }
    }
}

impl Settings {
    /// Sets the numeric setting `which` (the form's input id) from the raw text;
    /// whether it was a number (a setting left as it was otherwise).
    pub fn set_number(&mut self, which: &str, raw: &str) -> bool {
        match which {
            "temperature" => raw.parse().map(|v| self.temperature = v).is_ok(),
            "top-k" => raw.parse().map(|v| self.top_k = v).is_ok(),
            "top-p" => raw.parse().map(|v| self.top_p = v).is_ok(),
            "seed" => raw.parse().map(|v| self.seed = v).is_ok(),
            "max-tokens" => raw.parse().map(|v| self.max_tokens = v).is_ok(),
            "wrap-up" => raw.parse().map(|v| self.wrap_up = v).is_ok(),
            _ => false,
        }
    }

    /// The decode configuration for one playground run: traces on (the visualizer
    /// draws them), history on (Back), the wrap-up. The task adds the mode and the
    /// language's stop strings ([`espalier_decode::Task::configure`]).
    pub fn to_config(&self) -> GenerateConfig {
        GenerateConfig {
            mode: self.mode,
            sampling: SamplingConfig {
                temperature: self.temperature.max(0.0),
                top_k: self.top_k,
                top_p: self.top_p.clamp(0.0, 1.0),
                seed: self.seed,
            },
            max_tokens: self.max_tokens,
            trace: true,
            trace_top: 10,
            history: true,
            wrap_up: (self.wrap_up > 0).then_some(self.wrap_up),
            // A loop the repetition guard finds wraps the script up instead of
            // cutting it off (with the wrap-up on).
            wrap_up_on_repetition: self.wrap_up > 0,
            ..GenerateConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use espalier_decode::Lang;

    use super::*;
    use crate::lang::task;

    #[test]
    fn config_keeps_traces_and_history() {
        let s = Settings { temperature: -1.0, top_p: 3.0, ..Settings::default() };
        let c = s.to_config();
        assert!(c.trace && c.history);
        assert_eq!(c.sampling.temperature, 0.0);
        assert_eq!(c.sampling.top_p, 1.0);
        assert_eq!(c.wrap_up, Some(48));
        assert!(c.wrap_up_on_repetition);
        assert_eq!(Settings { wrap_up: 0, ..Settings::default() }.to_config().wrap_up, None);
    }

    #[test]
    fn numbers_set_from_the_form_and_refused_when_not_numbers() {
        let mut s = Settings::default();
        assert!(s.set_number("top-k", "12") && s.set_number("temperature", "0.5"));
        assert!(s.set_number("wrap-up", "0"));
        assert_eq!((s.top_k, s.temperature, s.wrap_up), (12, 0.5, 0));
        assert!(!s.set_number("seed", "x") && !s.set_number("colour", "1"));
        assert_eq!(s.seed, Settings::default().seed);
    }

    #[test]
    fn the_task_adds_the_language_stops_at_the_closing_fence() {
        let s = Settings::default();
        let slua = task(Lang::from_name("slua").unwrap(), s.mode, "a talent", false)
            .configure(s.to_config());
        assert_eq!(slua.stop_strings, vec!["```".to_owned()]);
        assert_eq!(slua.mode, s.mode);
        let python =
            task(Lang::from_name("python").unwrap(), s.mode, "add", false).configure(s.to_config());
        assert!(python.stop_strings.iter().any(|x| x == "\ndef "));
        assert!(python.stop_strings.iter().any(|x| x == "\nr"), "the first top-level line stops");
        assert!(!python.heal_prompt);
    }
}
