//! The sLua evaluation: eight talent categories of the demo game, each asked as an
//! effect and then a talent that may apply it. Every finished script must type-check,
//! translate to Lua and run 100 simulated turns without a runtime error.

use std::rc::Rc;
use std::time::Duration;

use espalier_game::Game;
use espalier_slua::{check, translate::to_lua, Api, Env};
use serde::{Deserialize, Serialize};

/// One category: what the effect and the talent should do.
#[derive(Clone, Copy, Debug)]
pub struct Category {
    /// Short name (poison, fire, ...).
    pub name: &'static str,
    /// The effect's task, as the prompt phrases it.
    pub effect: &'static str,
    /// The talent's task.
    pub talent: &'static str,
}

/// The eight categories the evaluation asks for.
pub const CATEGORIES: [Category; 8] = [
    Category {
        name: "poison",
        effect: "an effect that poisons its owner, dealing damage every turn",
        talent: "a talent that poisons an adjacent enemy",
    },
    Category {
        name: "fire",
        effect: "an effect that sets its owner on fire, burning it each turn",
        talent: "a talent that hurls fire at a target and sets it ablaze",
    },
    Category {
        name: "shields",
        effect: "an effect that shields its owner, reducing the damage it receives",
        talent: "a talent that puts a protective shield on its user",
    },
    Category {
        name: "summoning",
        effect: "an effect that marks its owner as a summoner, healing it a little each turn",
        talent: "a talent that summons help by healing and empowering its user",
    },
    Category {
        name: "frost",
        effect: "an effect that chills its owner so it is stunned for a turn",
        talent: "a talent that freezes a target in place",
    },
    Category {
        name: "healing",
        effect: "an effect that regenerates its owner's health every turn",
        talent: "a talent that heals its user when badly hurt",
    },
    Category {
        name: "lightning",
        effect: "an effect that electrifies its owner, shocking adjacent actors",
        talent: "a talent that strikes a target with lightning",
    },
    Category {
        name: "movement",
        effect: "an effect that hastens its owner",
        talent: "a talent that moves its user away from danger",
    },
];

/// What happened to one generated script after generation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ScriptOutcome {
    /// Checked, translated, loaded and ran the turns.
    Ran {
        /// The script's name.
        name: String,
    },
    /// The checker refused it (what the constraint rules out for finished scripts).
    CheckFailed {
        /// The checker's message.
        error: String,
    },
    /// Lua refused to load the translation.
    LoadFailed {
        /// The message.
        error: String,
    },
    /// A runtime error (or time-out) in the simulation.
    RuntimeError {
        /// The message.
        error: String,
    },
}

/// Type-checks `source` against the game API with the effects written so far
/// (`effects`: name and translated Lua), translates it, loads everything into a fresh
/// game and runs `turns` turns. On success returns the script's name and Lua.
pub fn check_and_run(
    source: &str,
    effects: &[(String, String)],
    turns: usize,
    seed: u64,
) -> (ScriptOutcome, Option<(String, String, String)>) {
    let api = Api::dungeon();
    let env = Rc::new(Env::new(api.clone(), effects.iter().map(|(n, _)| n.clone()).collect()));
    let script = match check(env, source) {
        Ok(s) => s,
        Err(e) => return (ScriptOutcome::CheckFailed { error: e.to_string() }, None),
    };
    let lua = to_lua(&script, &api);
    let mut game = match Game::new(seed) {
        Ok(g) => g,
        Err(e) => return (ScriptOutcome::LoadFailed { error: e.to_string() }, None),
    };
    for (_, l) in effects {
        if let Err(e) = game.load(l) {
            return (ScriptOutcome::LoadFailed { error: format!("earlier effect: {e}") }, None);
        }
    }
    if let Err(e) = game.load(&lua) {
        return (ScriptOutcome::LoadFailed { error: e.to_string() }, None);
    }
    if let Err(e) = game.run(turns, Duration::from_secs(20)) {
        return (ScriptOutcome::RuntimeError { error: e.to_string() }, None);
    }
    (
        ScriptOutcome::Ran { name: script.name.clone() },
        Some((script.kind.clone(), script.name, lua)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_written_effect_and_talent_pass_and_a_bad_one_is_refused() {
        let effect = include_str!("../../../slua/tests/scripts/valid/01_burning.slua");
        let (outcome, loaded) = check_and_run(effect, &[], 100, 1);
        assert!(matches!(outcome, ScriptOutcome::Ran { .. }), "{outcome:?}");
        let (kind, name, lua) = loaded.unwrap();
        assert_eq!(kind, "effect");
        let talent = include_str!("../../../slua/tests/scripts/valid/11_firebolt.slua");
        let (outcome, _) = check_and_run(talent, &[(name, lua)], 100, 2);
        assert!(matches!(outcome, ScriptOutcome::Ran { .. }), "{outcome:?}");
        let (outcome, _) = check_and_run("talent Broken;\nhook Nope = 3;\n", &[], 10, 3);
        assert!(matches!(outcome, ScriptOutcome::CheckFailed { .. }), "{outcome:?}");
    }
}
