//! The target languages the playground offers, and how a user's request becomes the
//! model's prompt for each.

use espalier_decode::prompt::{chatml, Message};
use espalier_slua::{prompt, Api};

/// A single-turn ChatML prompt (SmolLM2's template) ending with the assistant header.
fn chat(system: &str, user: &str) -> String {
    chatml(&[Message::new("system", system), Message::new("user", user)], true)
}

/// A language the model writes, with its constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// Python under the LR grammar constraint (parser stack, accept sequences).
    Python,
    /// sLua under the tree of parsers (regex per segment, game API).
    SLua,
}

/// The script kind an sLua request asks for: `effect` when it says so, else `talent`.
pub fn slua_kind(request: &str) -> &'static str {
    let r = request.trim_start().to_ascii_lowercase();
    if r.starts_with("an effect") || r.starts_with("effect") { "effect" } else { "talent" }
}

impl Lang {
    /// Every language, in the order the selector lists them.
    pub const ALL: [Lang; 2] = [Lang::SLua, Lang::Python];

    /// The value used in the `<select>` and in example files.
    pub fn key(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::SLua => "slua",
        }
    }

    /// The name shown to the user.
    pub fn label(self) -> &'static str {
        match self {
            Lang::Python => "Python",
            Lang::SLua => "sLua (game API)",
        }
    }

    /// Parses [`Lang::key`].
    pub fn from_key(key: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.key() == key)
    }

    /// The code fence the assistant's answer opens with; the generation continues
    /// right after it, so the constraint sees code from the first byte.
    pub fn fence(self) -> &'static str {
        match self {
            Lang::Python => "```python\n",
            Lang::SLua => "```lua\n",
        }
    }

    /// The full chat prompt (SmolLM2's ChatML template), ending inside the
    /// assistant's code fence. For sLua the user turn is either the slua crate's full
    /// prompt (`full`: the language document, the game API and example scripts, about
    /// 3k tokens) or a compact one (two example talents and the task, a few hundred
    /// tokens, so the prompt runs in seconds on the CPU backend). The constraint keeps
    /// the output valid either way; the full prompt only helps the model aim.
    pub fn chat_prompt(self, request: &str, full: bool) -> String {
        let request = request.trim();
        let mut text = match self {
            Lang::Python => chat(
                "You are a helpful coding assistant. Answer with Python code only.",
                request,
            ),
            Lang::SLua => {
                let kind = slua_kind(request);
                let user = if full {
                    prompt::prompt(&Api::dungeon(), kind, request)
                } else {
                    compact_slua_prompt(kind, request)
                };
                chat("You are a helpful coding assistant. Answer with sLua code only.", &user)
            }
        };
        text.push_str(self.fence());
        text
    }
}

/// The compact sLua request: the talent examples of the slua crate, then the task.
fn compact_slua_prompt(kind: &str, task: &str) -> String {
    let mut s = String::from("sLua is a typed subset of Lua for game scripts.\n");
    for (what, script) in prompt::EXAMPLES.iter().filter(|(what, _)| what.starts_with("a talent")) {
        s.push_str(&format!("\nWrite {what}.\n```lua\n{script}```\n"));
    }
    s.push_str(&format!("\nWrite {task}. Answer with one sLua {kind} script only.\n"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip() {
        for lang in Lang::ALL {
            assert_eq!(Lang::from_key(lang.key()), Some(lang));
        }
        assert_eq!(Lang::from_key("cobol"), None);
    }

    #[test]
    fn prompt_ends_inside_the_fence() {
        let p = Lang::Python.chat_prompt("  add two numbers ", false);
        assert!(p.starts_with("<|im_start|>system\n"));
        assert!(p.contains("<|im_start|>user\nadd two numbers<|im_end|>"));
        assert!(p.ends_with("<|im_start|>assistant\n```python\n"));
    }

    #[test]
    fn slua_prompt_carries_the_api_and_the_task() {
        let full = Lang::SLua.chat_prompt("a talent that heals its user", true);
        assert!(full.contains("Write a talent that heals its user."));
        assert!(full.contains("## API"));
        assert!(full.ends_with("```lua\n"));
        let compact = Lang::SLua.chat_prompt("a talent that heals its user", false);
        assert!(compact.contains("talent Mend;") || compact.contains("talent "));
        assert!(!compact.contains("## API") && compact.len() < full.len() / 3);
        assert!(compact.contains("Answer with one sLua talent script only."));
        assert!(compact.ends_with("<|im_start|>assistant\n```lua\n"));
        assert_eq!(slua_kind("an effect that burns"), "effect");
        assert_eq!(slua_kind("a talent that heals"), "talent");
    }
}
