//! What the decoder needs to prompt a model for sLua: the language document, a
//! compact API listing and a few example scripts to show in context.

use crate::api::Api;

/// The language document (`docs/slua.md`), the text a model is prompted with.
pub const LANGUAGE_DOC: &str = include_str!("../../../docs/slua.md");

/// Example scripts for in-context prompting: (what it was asked to be, the script).
/// Each effect comes before the talent that applies it. They are short, complete
/// scripts of the plainest shape (hooks calling the API, no local function
/// definitions): a small model imitates what it is shown, and more elaborate
/// examples led SmolLM2 into nesting definitions without end. All four are in the
/// tested corpus (`tests/scripts/valid`).
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "an effect that makes its owner bleed every turn",
        include_str!("../tests/scripts/valid/23_bleeding.slua"),
    ),
    (
        "an effect that heals its owner every turn",
        include_str!("../tests/scripts/valid/02_regeneration.slua"),
    ),
    (
        "a talent that cuts a target and makes it bleed",
        include_str!("../tests/scripts/valid/24_slash.slua"),
    ),
    (
        "a talent that heals its user when badly hurt",
        include_str!("../tests/scripts/valid/12_heal_self.slua"),
    ),
];

/// The API as prompt text: types with fields and methods, functions, hooks.
pub fn api_summary(api: &Api) -> String {
    api.summary()
}

/// A complete instruction for writing one script: language, API, examples, task.
/// `kind` is `effect` or `talent`; the model's answer should start with `kind`.
pub fn prompt(api: &Api, kind: &str, task: &str) -> String {
    let mut s = String::new();
    s.push_str(LANGUAGE_DOC);
    s.push_str("\n## API\n\n");
    s.push_str(&api_summary(api));
    s.push_str("\n## Examples\n");
    for (what, script) in EXAMPLES {
        s.push_str(&format!("\nWrite {what}.\n```lua\n{}```\n", script));
    }
    s.push_str(&format!("\nWrite {task}. Answer with one sLua {kind} script only.\n"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_holds_the_doc_the_api_and_the_task() {
        let api = Api::dungeon();
        let p = prompt(&api, "talent", "a talent that freezes a target");
        assert!(p.contains("sLua") && p.contains("WithActorAt") && p.contains("freezes a target"));
        // Short, complete examples: each ends with GetDescription and `end;`.
        for (_, script) in EXAMPLES {
            assert!(script.lines().count() <= 12, "{script}");
            assert!(script.contains("hook GetDescription") && script.trim_end().ends_with("end;"));
        }
    }
}
