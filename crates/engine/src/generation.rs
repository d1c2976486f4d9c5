//! [`generate`]: one generation of a [`Loaded`] model under a constraint, natively,
//! streaming the text to stdout and writing the per-step trace when asked; the model's
//! cache keeps the context for the next generation (a shared prompt prefix is not run
//! again).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use espalier_decode::{run as drive, GenerateConfig, Generator, LangConstraint, Timing};

use crate::{EngineError, Loaded};

/// Runs one generation, streaming the text to stdout when `stream` and writing the
/// trace to `trace` when given. The constraint's finishing mask, if it has one, serves
/// the wrap-up (`config.wrap_up`).
pub fn generate(
    loaded: &mut Loaded,
    constraint: LangConstraint,
    prompt_ids: &[u32],
    config: GenerateConfig,
    trace: Option<&Path>,
    stream: bool,
) -> Result<(Generator<LangConstraint>, Timing), EngineError> {
    let hold = config.stop_strings.iter().map(|s| s.len()).max().unwrap_or(1).saturating_sub(1);
    let mut generator = Generator::new(loaded.vocab.clone(), constraint, prompt_ids, config)?
        .reuse_cache(&loaded.model.cached);
    let trace_error =
        |p: &Path, source| EngineError::Trace { path: p.display().to_string(), source };
    let mut trace_out = match trace {
        Some(p) => Some(BufWriter::new(File::create(p).map_err(|e| trace_error(p, e))?)),
        None => None,
    };
    let mut trace_err: Option<std::io::Error> = None;
    let mut printed = 0;
    let stdout = std::io::stdout();
    // Whatever happens below, the cache is only known to be right up to here.
    let keep = generator.next_input().map_or(0, |feed| feed.keep);
    loaded.model.cached.truncate(keep);
    let result = drive(&mut generator, &mut loaded.model, |g, outcome| {
        if let (Some(out), Some(step)) = (trace_out.as_mut(), outcome.trace.as_ref()) {
            let line = serde_json::to_string(step).expect("traces serialize");
            if let Err(e) = writeln!(out, "{line}") {
                trace_err.get_or_insert(e);
            }
        }
        if stream {
            // Hold back what a stop string could still cut.
            let text = g.text_bytes();
            let upto =
                if outcome.stop.is_some() { text.len() } else { text.len().saturating_sub(hold) };
            if upto > printed {
                let mut lock = stdout.lock();
                let _ = lock.write_all(&text[printed..upto]);
                let _ = lock.flush();
                printed = upto;
            }
        }
    });
    loaded.model.cached = match result {
        Ok(_) => generator.cached_context().to_vec(),
        Err(_) => Vec::new(),
    };
    let timing = result?;
    if stream {
        println!();
    }
    if let (Some(p), Some(mut out)) = (trace, trace_out) {
        if let Err(e) = out.flush() {
            trace_err.get_or_insert(e);
        }
        if let Some(e) = trace_err {
            return Err(trace_error(p, e));
        }
    }
    Ok((generator, timing))
}
