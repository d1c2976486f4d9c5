//! The playground's languages are the registry's ([`espalier_decode::Lang`]: the
//! menu, the constraints, the prompts and stop rules all come from there); this module
//! only says how the playground frames a request: a chat with the language's system
//! message, answered inside a code fence.

use espalier_decode::{Framing, Lang, Mode, Task};

/// The playground's task for `request` in `lang`: a fenced chat, with the language's
/// full instruction when `full` (sLua: the language document and API, about 3k
/// tokens) or its compact one (a few hundred tokens, so the prompt runs in seconds on
/// the CPU backend). The constraint keeps the output valid either way.
pub fn task(lang: Lang, mode: Mode, request: &str, full: bool) -> Task {
    Task::new(Some(lang), mode, request).framing(Framing::Chat { system: true, fence: true, full })
}

/// The playground's task for a request: with a `suffix`, fill in the middle between
/// `request` (the code left of the cursor) and it ([`Task::fim`]), else [`task`].
pub fn task_for(lang: Lang, mode: Mode, request: &str, suffix: Option<&str>, full: bool) -> Task {
    match suffix {
        Some(suffix) => Task::fim(lang, mode, request, suffix),
        None => task(lang, mode, request, full),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_prompt_ends_inside_the_fence() {
        for lang in Lang::all() {
            let p = task(lang, Mode::Mask, "  write something ", false).prompt(None).unwrap();
            assert!(p.starts_with("<|im_start|>system\n"), "{lang}");
            assert!(
                p.ends_with(&format!(
                    "<|im_start|>assistant\n{}{}",
                    lang.prompting().fence(),
                    lang.prompting().answer_start()
                )),
                "{lang}"
            );
        }
        let p = task(Lang::from_name("python").unwrap(), Mode::Mask, "  add two numbers ", false)
            .prompt(None)
            .unwrap();
        assert!(p.contains("<|im_start|>user\nadd two numbers<|im_end|>"));
    }

    #[test]
    fn slua_prompt_carries_the_api_and_the_task() {
        let slua = Lang::from_name("slua").unwrap();
        let full =
            task(slua, Mode::Mask, "a talent that heals its user", true).prompt(None).unwrap();
        assert!(full.contains("Write a talent that heals its user."));
        assert!(full.contains("## API"));
        assert!(full.ends_with("```lua\n"));
        let compact =
            task(slua, Mode::Mask, "a talent that heals its user", false).prompt(None).unwrap();
        assert!(!compact.contains("## API") && compact.len() < full.len() / 3);
        assert!(compact.contains("Answer with one sLua talent script only."));
        assert!(compact.ends_with("<|im_start|>assistant\n```lua\n"));
        assert_eq!(task(slua, Mode::Mask, "an effect that burns", false).program_kind(), "effect");
    }
}
