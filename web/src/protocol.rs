//! The messages between the page and its Web Worker. The worker owns the model, the
//! constraints and the generation; the page renders and forwards clicks. Messages
//! travel as JSON strings (`postMessage`), so this module is pure and its round trips
//! are tested natively.
//!
//! The page sends [`ToWorker`]; the worker answers with [`FromWorker`]. The page
//! starts with nothing to send until the worker says [`FromWorker::Alive`] (its
//! handler is installed), then sends [`ToWorker::Load`].

use std::collections::BTreeMap;

use espalier_decode::StepTrace;
use serde::{Deserialize, Serialize};

use crate::settings::Settings;

/// How a run begins: a new generation, or the current one (rewound first when the
/// page shows an earlier step than the last).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Start {
    /// A new generation of `lang` (the registry's name) for `request`; with a
    /// `suffix`, fill in the middle: `request` is the code left of the cursor.
    New {
        lang: String,
        request: String,
        settings: Settings,
        #[serde(default)]
        suffix: Option<String>,
    },
    /// Go on with the current generation, first going back to the state before step
    /// `rewind_to` when given.
    Continue { rewind_to: Option<usize> },
}

/// What the page asks of the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// Fetch (or read from the browser's cache) the model, choose the device, load.
    Load { force_cpu: bool },
    /// Load the GGUF file the user opened instead (sent beside this message; it is
    /// read in the worker, never uploaded), replacing the model loaded.
    LoadFile { force_cpu: bool, name: String },
    /// Run up to `max_steps` steps (all when `None`), reporting each.
    Run { start: Start, max_steps: Option<usize> },
    /// Stop the running generation before its next step (or prompt chunk), keeping at
    /// most `keep` steps: those the page shows and the one in flight. Steps the worker
    /// ran ahead of the page (its reports not shown yet when the page is slow to draw)
    /// are undone, so the run pauses where the user clicked.
    Stop { keep: usize },
    /// Forget the generation.
    Reset,
    /// The benchmark (`scripts/bench-browser.sh`): the model alone, no constraint.
    /// Runs `prompt`'s ids in one pass, then `tokens` greedy tokens, one pass each.
    Bench { prompt: String, tokens: usize },
}

/// What one benchmark run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    /// The prompt's token ids (the other engine gets the same ones).
    pub prompt_ids: Vec<u32>,
    /// The greedy tokens.
    pub generated_ids: Vec<u32>,
    /// Their text.
    pub text: String,
    /// Milliseconds of the prompt's pass.
    pub prefill_ms: f64,
    /// Milliseconds of the generated tokens' passes (one per token, each fed back).
    pub decode_ms: f64,
}

/// Speed figures of the current session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    /// Prompt tokens.
    pub prompt_tokens: usize,
    /// Milliseconds from Generate to the first token.
    pub first_token_ms: Option<f64>,
    /// Generated tokens per second of busy time.
    pub tokens_per_s: f64,
    /// Milliseconds the model took for the prompt (the first step).
    pub prefill_ms: f64,
    /// Mean milliseconds per generated token in the model, after the first.
    pub model_ms: f64,
    /// Mean milliseconds per step in the constraint.
    pub constraint_ms: f64,
}

/// What the loaded engine is, for the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Loaded {
    /// `webgpu` or `cpu`.
    pub backend: String,
    /// The backend choice in words.
    pub backend_detail: String,
    /// The model in words.
    pub model_detail: String,
    /// Where the model file came from (the browser's cache, the network, a file).
    pub source: String,
    /// The model's facts, one line each ([`crate::model_facts::ModelFacts::lines`]).
    #[serde(default)]
    pub facts: Vec<String>,
}

/// One step as the page shows it: the decode loop's trace, the session's speed, and
/// the legible form ([`crate::visible::label`]) of each token the step names (its
/// candidates, the chosen and the refused), made from the tokens' raw bytes, which
/// only the worker holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShownStep {
    /// What the decode loop recorded.
    pub trace: StepTrace,
    /// Speed so far.
    pub speed: Speed,
    /// Token id to its raw bytes.
    pub token_bytes: BTreeMap<u32, Vec<u8>>,
}

/// What the worker tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// The worker's message handler is installed.
    Alive,
    /// Model bytes received (from the network or the cache), and the total when known.
    Progress { got: u64, total: Option<u64>, from_cache: bool },
    /// A loading phase began.
    Preparing(String),
    /// Loading finished.
    Loaded(Result<Loaded, String>),
    /// The file the user opened is not a model this page can load (not a GGUF file,
    /// truncated, another architecture, too big for the tab's memory): the error, and
    /// whether the model loaded before is still loaded (it is kept until a file passes
    /// these checks).
    FileRefused { error: String, model_loaded: bool },
    /// The worker stopped working (a panic, or an error the browser reported): what
    /// it said. Nothing more comes from this worker; the page offers to start again.
    Crashed(String),
    /// A step finished.
    Step(Box<ShownStep>),
    /// The run ended: an error, or why the generation stopped (`None` when paused),
    /// and, when it stopped in a language translated before it runs (sLua), the
    /// translation or why there is none (made here so the page's thread never runs the
    /// checker: ~100 ms for a talent).
    RunEnded {
        error: Option<String>,
        stop: Option<String>,
        translation: Option<Result<String, String>>,
    },
    /// A benchmark finished.
    Bench(Result<BenchResult, String>),
}

/// Encodes a message for `postMessage`.
pub fn encode<T: Serialize>(message: &T) -> String {
    // The message types hold only strings, numbers, maps with integer keys and
    // sequences, which serde_json always encodes.
    serde_json::to_string(message).unwrap_or_else(|e| format!("{{\"unencodable\":\"{e}\"}}"))
}

/// Decodes a message received through `postMessage`.
pub fn decode<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, String> {
    serde_json::from_str(text)
        .map_err(|e| format!("a malformed message between the page and the worker: {e}"))
}

#[cfg(test)]
mod tests {
    use espalier_decode::{Candidate, How};

    use super::*;

    fn trace() -> StepTrace {
        StepTrace {
            step: 3,
            text: "def f():\n".into(),
            candidates: vec![Candidate {
                id: 198,
                text: "\n".into(),
                prob: 0.5,
                allowed: Some(true),
            }],
            chosen: 198,
            chosen_text: "\n".into(),
            how: How::Sampled,
            refused: vec![7],
            mask_size: Some(12),
            forced_prefix: None,
            model_ms: 100.0,
            constraint_ms: 0.5,
            sample_ms: 0.1,
            inspect: None,
            stop: None,
            wrap_up: false,
        }
    }

    #[test]
    fn page_messages_round_trip() {
        let messages = [
            ToWorker::Load { force_cpu: true },
            ToWorker::LoadFile { force_cpu: false, name: "qwen.gguf".into() },
            ToWorker::Run {
                start: Start::New {
                    lang: "python".into(),
                    request: "add".into(),
                    settings: Settings::default(),
                    suffix: None,
                },
                max_steps: Some(1),
            },
            ToWorker::Run {
                start: Start::New {
                    lang: "python".into(),
                    request: "x = (".into(),
                    settings: Settings::default(),
                    suffix: Some(")\n".into()),
                },
                max_steps: None,
            },
            ToWorker::Run { start: Start::Continue { rewind_to: Some(4) }, max_steps: None },
            ToWorker::Stop { keep: 3 },
            ToWorker::Reset,
            ToWorker::Bench { prompt: "def".into(), tokens: 64 },
        ];
        for m in messages {
            assert_eq!(decode::<ToWorker>(&encode(&m)).unwrap(), m);
        }
    }

    #[test]
    fn worker_messages_round_trip() {
        let step = ShownStep {
            trace: trace(),
            speed: Speed { prompt_tokens: 50, first_token_ms: Some(1.5), ..Speed::default() },
            token_bytes: BTreeMap::from([(198, b"\n".to_vec()), (7, vec![0xE2, 0x86])]),
        };
        let messages = [
            FromWorker::Alive,
            FromWorker::Progress { got: 10, total: Some(20), from_cache: true },
            FromWorker::Preparing("building the tokenizer".into()),
            FromWorker::Loaded(Ok(Loaded {
                backend: "cpu".into(),
                backend_detail: "CPU".into(),
                model_detail: "m".into(),
                source: "cache".into(),
                facts: vec!["llama".into()],
            })),
            FromWorker::Loaded(Err("no".into())),
            FromWorker::FileRefused { error: "not a GGUF file".into(), model_loaded: true },
            FromWorker::Crashed("panicked at worker.rs:1:1".into()),
            FromWorker::Step(Box::new(step)),
            FromWorker::RunEnded {
                error: None,
                stop: Some("eos".into()),
                translation: Some(Ok("local x = 1".into())),
            },
            FromWorker::RunEnded {
                error: None,
                stop: None,
                translation: Some(Err("line 1: unknown name".into())),
            },
            FromWorker::Bench(Ok(BenchResult {
                prompt_ids: vec![1, 2],
                generated_ids: vec![3],
                text: "x".into(),
                prefill_ms: 1.0,
                decode_ms: 2.0,
            })),
        ];
        for m in messages {
            assert_eq!(decode::<FromWorker>(&encode(&m)).unwrap(), m);
        }
    }

    #[test]
    fn malformed_messages_are_errors() {
        assert!(decode::<ToWorker>("{\"Run\":{}}").unwrap_err().contains("malformed"));
        assert!(decode::<FromWorker>("not json").is_err());
    }
}
