//! What the decoder needs to prompt a model for sLua: the language document, a
//! compact API listing and a few example scripts to show in context.

use crate::api::Api;

/// The language document (`docs/slua.md`), the text a model is prompted with.
pub const LANGUAGE_DOC: &str = include_str!("../../../docs/slua.md");

/// Example scripts for in-context prompting: (what it was asked to be, the script).
/// The effect comes before the talent that calls it.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("an effect that burns its owner every turn", include_str!("../tests/scripts/valid/01_burning.slua")),
    ("an effect that returns damage to adjacent attackers", include_str!("../tests/scripts/valid/03_thorns.slua")),
    ("a talent that heals its user when badly hurt", include_str!("../tests/scripts/valid/12_heal_self.slua")),
    ("a talent that hits a target and sets it on fire", include_str!("../tests/scripts/valid/11_firebolt.slua")),
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
    }
}
