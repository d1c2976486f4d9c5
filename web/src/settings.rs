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
    /// Wrap up when this many tokens of the budget are left: from then on the mask
    /// keeps only the tokens that lead towards the shortest completion, so the script
    /// closes instead of running out of budget mid-statement (0 = off; sLua only, the
    /// Python constraint has no finishing mask and ends at stop strings instead).
    pub wrap_up: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self { mode: Mode::Mask, temperature: 0.0, top_k: 40, top_p: 0.95, seed: 7, max_tokens: 160, full_prompt: false, wrap_up: 48 }
    }
}

impl Settings {
    /// The decode configuration for one playground run: traces on (the visualizer
    /// draws them), history on (Back), the wrap-up, stop at the closing code fence
    /// (and, for Python, at the first top-level line after the code began: see
    /// [`python_top_level_stops`]).
    pub fn to_config(&self, lang: Lang) -> GenerateConfig {
        let stop_strings = match lang {
            Lang::Python => python_top_level_stops(),
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
            wrap_up: (self.wrap_up > 0).then_some(self.wrap_up),
            // A loop the repetition guard finds wraps the script up instead of
            // cutting it off (with the wrap-up on).
            wrap_up_on_repetition: self.wrap_up > 0,
            ..GenerateConfig::default()
        }
    }
}

/// The playground's Python answers are one function (or class): the decode crate's
/// stop strings (`\ndef `, `\nprint(`, ...) plus a newline followed by any identifier
/// start or decorator at column 0, i.e. the first top-level statement after the
/// function. Without them the model, once the function is written, goes on with
/// top-level calls (`result = add(1, 2)`) until the budget cuts a line in half; with
/// them the text ends after the function's last line, which is valid Python. A
/// top-level line inside a multi-line string is the one case they cut wrongly.
pub fn python_top_level_stops() -> Vec<String> {
    let mut stops = python_stop_strings();
    let starts = ('a'..='z').chain('A'..='Z').chain(['_', '@']);
    let extra: Vec<String> = starts.map(|c| format!("\n{c}")).filter(|s| !stops.contains(s)).collect();
    stops.extend(extra);
    stops
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
        assert_eq!(c.wrap_up, Some(48));
        assert!(c.wrap_up_on_repetition);
        assert_eq!(Settings { wrap_up: 0, ..Settings::default() }.to_config(Lang::SLua).wrap_up, None);
    }

    #[test]
    fn python_stops_at_the_first_top_level_line() {
        let stops = python_top_level_stops();
        let text = "def add(a, b):\n    return a + b\n\nresult = add(1, 2)\n";
        let cut = stops.iter().filter_map(|s| text.find(s.as_str())).min().unwrap();
        assert_eq!(&text[..cut], "def add(a, b):\n    return a + b\n");
        // Indented lines and closing brackets at column 0 do not stop.
        let body = "def f(\n    a,\n):\n    if a:\n        return 1\n    return 2";
        assert!(stops.iter().all(|s| !body.contains(s.as_str())));
        let mut sorted = stops.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), stops.len(), "no duplicate stop strings");
    }
}
