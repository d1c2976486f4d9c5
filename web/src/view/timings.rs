//! Per-step timings (model, constraint, sampling) and the running speed.

use espalier_decode::StepTrace;
use yew::prelude::*;

use crate::protocol::Speed;

/// The timing panel: the shown step's split and the session's speed. The `data-*`
/// attributes carry the raw numbers for the browser test.
pub fn timings(step: Option<&StepTrace>, speed: &Speed) -> Html {
    let ttft = speed.first_token_ms.map(|t| format!("{t:.0}")).unwrap_or_default();
    html! {
        <div id="timings" class="timings"
            data-ttft-ms={ttft.clone()}
            data-tokens-per-s={format!("{:.3}", speed.tokens_per_s)}
            data-prompt-tokens={speed.prompt_tokens.to_string()}
            data-prefill-ms={format!("{:.1}", speed.prefill_ms)}
            data-model-ms={format!("{:.2}", speed.model_ms)}
            data-constraint-ms={format!("{:.2}", speed.constraint_ms)}>
            if let Some(s) = step {
                <p>{format!("step {}: model {:.1} ms · constraint {:.2} ms · sampling {:.2} ms",
                    s.step, s.model_ms, s.constraint_ms, s.sample_ms)}</p>
            }
            <p>{format!("prompt {} tokens · first token after {} ms · {:.2} tokens/s",
                speed.prompt_tokens, if ttft.is_empty() { "–".to_owned() } else { ttft }, speed.tokens_per_s)}</p>
            if speed.prefill_ms > 0.0 {
                <p class="muted">{format!("prompt pass {:.0} ms · per token: model {:.1} ms, constraint {:.2} ms (means)",
                    speed.prefill_ms, speed.model_ms, speed.constraint_ms)}</p>
            }
        </div>
    }
}
