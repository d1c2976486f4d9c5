//! [`prepare`]: a task made ready to generate: its prompt ids ([`crate::prompt_ids`]),
//! its constraint (from the engine's [`Kits`]) and the decode settings the task sets
//! (mode, the language's stop strings, prompt healing).

use espalier_decode::{GenerateConfig, Kits, LangConstraint, Task};
use espalier_model::Tokenizer;

use crate::{prompt_ids, EngineError};

/// What a generation of a task starts from.
pub struct Prepared {
    /// The prompt's token ids.
    pub ids: Vec<u32>,
    /// The constraint (unconstrained in mode `none`).
    pub constraint: LangConstraint,
    /// The caller's settings with the task's part set ([`Task::configure`]).
    pub config: GenerateConfig,
}

/// Prepares `task` for the model of `tok`, its constraint built from `kits`, on top of
/// the caller's `config` (sampling, budget, extra stop strings, wrap-up).
pub fn prepare(
    tok: &Tokenizer,
    kits: &mut Kits,
    task: &Task,
    config: GenerateConfig,
) -> Result<Prepared, EngineError> {
    let constraint = task.constraint(kits)?;
    let mut config = task.configure(config);
    let prompt = prompt_ids(tok, task)?;
    config.heal_prompt = prompt.heal;
    Ok(Prepared { ids: prompt.ids, constraint, config })
}
