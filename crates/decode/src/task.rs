//! [`Task`]: one generation job — a language (or none), a mode and the user's request
//! — turned into the model's prompt, the constraint and the decode settings. The CLI
//! (`generate`, `eval`, `bench decode`) and the web app build their generations here.

use crate::prompt::{render_chat_with, Chat, Message};
use crate::{
    ConstraintInput, Framing, GenerateConfig, Kit, Kits, Lang, LangConstraint, LangError, Mode,
    Unconstrained,
};

/// One generation job.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// The language the output is constrained to; `None`: a plain chat or completion.
    pub lang: Option<Lang>,
    /// How the constraint is consulted.
    pub mode: Mode,
    /// What the user wrote: code to continue, or a task (see [`Task::framing`]).
    pub request: String,
    /// How the request becomes the prompt.
    pub framing: Framing,
    /// The kind of program (sLua: `effect` or `talent`); `None`: the language's guess
    /// from the request ([`crate::Prompting::kind_of`]).
    pub kind: Option<String>,
    /// sLua: the effects already written, which talents may apply.
    pub effects: Vec<String>,
    /// Fill in the middle ([`Framing::Fim`]): the code right of the cursor (the
    /// request is the code left of it).
    pub suffix: String,
}

/// What a [`Task`] prepares.
pub struct Prepared {
    /// The model's prompt text.
    pub prompt: String,
    /// The constraint, primed with the code already in the prompt.
    pub constraint: LangConstraint,
}

impl Task {
    /// A task in the framing the command line gives `lang` ([`crate::Prompting::cli_framing`]),
    /// or without a language a chat with the request as the user's message.
    pub fn new(lang: Option<Lang>, mode: Mode, request: impl Into<String>) -> Self {
        let framing = lang.map_or(Framing::Chat { system: false, fence: false, full: true }, |l| {
            l.prompting().cli_framing()
        });
        Self {
            lang,
            mode,
            request: request.into(),
            framing,
            kind: None,
            effects: Vec::new(),
            suffix: String::new(),
        }
    }

    /// Fill in the middle: `lang` code between `prefix` and `suffix`; the model writes
    /// the middle, and under a constraining mode EOS comes only once prefix + middle +
    /// suffix is a complete program ([`espalier_constraint::FimConstraint`]).
    pub fn fim(
        lang: Lang,
        mode: Mode,
        prefix: impl Into<String>,
        suffix: impl Into<String>,
    ) -> Self {
        Self { suffix: suffix.into(), ..Self::new(Some(lang), mode, prefix).framing(Framing::Fim) }
    }

    /// The same with another framing.
    pub fn framing(mut self, framing: Framing) -> Self {
        self.framing = framing;
        self
    }

    /// The same for a program of `kind`.
    pub fn kind(mut self, kind: impl Into<String>) -> Self {
        self.kind = Some(kind.into());
        self
    }

    /// The same with the effects already written.
    pub fn effects(mut self, effects: Vec<String>) -> Self {
        self.effects = effects;
        self
    }

    /// The kind of program asked for (empty for languages without kinds).
    pub fn program_kind(&self) -> String {
        match (&self.kind, self.lang) {
            (Some(k), _) => k.clone(),
            (None, Some(l)) => l.prompting().kind_of(&self.request).to_string(),
            (None, None) => String::new(),
        }
    }

    /// The prompt, rendered with `chat_template` (the GGUF's; ChatML when `None`).
    pub fn prompt(&self, chat_template: Option<&str>) -> Result<String, LangError> {
        self.prompt_with(&Chat::from(chat_template))
    }

    /// The prompt in the model's chat format (its template, tokens and family).
    pub fn prompt_with(&self, chat: &Chat) -> Result<String, LangError> {
        match (self.framing, self.lang) {
            (Framing::Raw | Framing::Completion, _) | (Framing::Fim, None) => {
                Ok(self.request.clone())
            }
            (Framing::Fim, Some(lang)) => {
                // SmolLM2 has no FIM tokens: the chat turn shows the code after the gap and
                // the answer starts with the prefix, which the model continues.
                let label = lang.label();
                let user = format!(
                    "Here is the end of a {label} file:\n{fence}{suffix}\n```\nWrite the beginning of the file so \
                     that it continues exactly into the code above.",
                    fence = lang.prompting().fence(),
                    suffix = self.suffix
                );
                let mut text = render_chat_with(chat, &[Message::new("user", user)], true)?;
                text.push_str(lang.prompting().fence());
                text.push_str(&self.request);
                Ok(text)
            }
            (Framing::Chat { .. }, None) => {
                Ok(render_chat_with(chat, &[Message::new("user", self.request.as_str())], true)?)
            }
            (Framing::Chat { system, fence, full }, Some(lang)) => {
                let user =
                    lang.prompting().instruction(self.request.trim(), &self.program_kind(), full);
                let mut messages = Vec::new();
                if system {
                    messages.push(Message::new("system", lang.prompting().system()));
                }
                messages.push(Message::new("user", user));
                let mut text = render_chat_with(chat, &messages, true)?;
                if fence {
                    text.push_str(lang.prompting().fence());
                    text.push_str(lang.prompting().answer_start());
                }
                Ok(text)
            }
        }
    }

    /// The constraint: none in mode `none` or without a language, else the language's,
    /// primed with the request when it is code left of the cursor. Refuses a mode the
    /// language lacks.
    pub fn constraint(&self, kits: &mut Kits) -> Result<LangConstraint, LangError> {
        let Some(lang) = self.lang else { return Ok(LangConstraint::None(Unconstrained)) };
        lang.check_mode(self.mode)?;
        if self.mode == Mode::None {
            return Ok(LangConstraint::None(Unconstrained));
        }
        if self.framing == Framing::Fim {
            if self.mode == Mode::Names {
                return Err(LangError::Mode { mode: self.mode, lang: lang.name(), why: NAMES_FIM });
            }
            return match kits.get(lang, self.mode)? {
                Kit::Grammar(kit) if lang.fills_in_the_middle() => {
                    kit.fim_constraint(&self.request, &self.suffix)
                }
                _ => Err(LangError::Mode {
                    mode: self.mode,
                    lang: lang.name(),
                    why: "it cannot fill in the middle",
                }),
            };
        }
        let kind = self.program_kind();
        let prefix = match self.framing {
            Framing::Completion => self.request.as_str(),
            Framing::Chat { fence: true, .. } => lang.prompting().answer_start(),
            _ => "",
        };
        let input = ConstraintInput { prefix, kind: &kind, effects: &self.effects };
        let kit = kits.get(lang, self.mode)?;
        lang.constraint(kit, self.mode, &input)
    }

    /// Prompt and constraint together.
    pub fn prepare(
        &self,
        kits: &mut Kits,
        chat_template: Option<&str>,
    ) -> Result<Prepared, LangError> {
        self.prepare_with(kits, &Chat::from(chat_template))
    }

    /// Prompt (in the model's chat format) and constraint together.
    pub fn prepare_with(&self, kits: &mut Kits, chat: &Chat) -> Result<Prepared, LangError> {
        Ok(Prepared { prompt: self.prompt_with(chat)?, constraint: self.constraint(kits)? })
    }

    /// Sets the task's part of `config`: the mode, the language's stop strings (after
    /// those already there) and prompt healing for a completion.
    pub fn configure(&self, mut config: GenerateConfig) -> GenerateConfig {
        config.mode = self.mode;
        match (self.lang, self.framing) {
            // The middle ends at EOS (allowed once it joins the suffix); unconstrained,
            // at the answer's closing fence.
            (_, Framing::Fim) if self.mode == Mode::None => config.stop_strings.push("```".into()),
            (_, Framing::Fim) | (None, _) => {}
            (Some(lang), framing) => {
                config.stop_strings.extend(lang.prompting().stop_strings(framing))
            }
        }
        config.heal_prompt = match self.framing {
            Framing::Completion => true,
            Framing::Fim => !self.request.is_empty(),
            _ => false,
        };
        config
    }
}

/// Why mode `names` refuses fill-in-the-middle (rather than run as the plain FIM
/// mask, as it did before s41, which a user could not tell from the names layer).
const NAMES_FIM: &str = "the names layer reads a program from its start, and a middle \
    would also have to be checked against the code right of the cursor (the names it reads, \
    which the middle may bind or unbind): not built; use mode mask";

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use espalier_constraint::{Constraint, Vocab};

    use super::*;
    use crate::prompt::chatml;

    fn lang(name: &str) -> Lang {
        Lang::from_name(name).unwrap()
    }

    fn kits() -> Kits {
        let tokens: Vec<Vec<u8>> =
            ["<eos>", "def", " f", "(", ")", ":", "\n", " ", "x", "talent", "effect"]
                .iter()
                .map(|t| t.as_bytes().to_vec())
                .collect();
        Kits::new(Arc::new(Vocab::new(tokens, &[0], 0)))
    }

    #[test]
    fn a_completion_is_its_own_prompt_and_primes_the_constraint() {
        let task = Task::new(Some(lang("python")), Mode::Mask, "def f(x):\n    return (x");
        assert_eq!(task.framing, Framing::Completion);
        let mut kits = kits();
        let p = task.prepare(&mut kits, None).unwrap();
        assert_eq!(p.prompt, task.request);
        let mut c = p.constraint;
        assert!(!c.is_complete());
        assert!(c.allows(b")\n") && !c.allows(b"]"));
        assert!(c.commit(b")\n").is_ok() && c.is_complete());
        let config = task.configure(GenerateConfig {
            stop_strings: vec!["STOP".into()],
            ..GenerateConfig::default()
        });
        assert!(config.heal_prompt && config.mode == Mode::Mask);
        assert_eq!(config.stop_strings[0], "STOP");
        assert!(config.stop_strings.iter().any(|s| s == "\ndef "));
    }

    #[test]
    fn a_prompt_that_is_not_a_prefix_is_an_error() {
        let task = Task::new(Some(lang("python")), Mode::Mask, "def f(x)]");
        let err = task.constraint(&mut kits()).err().unwrap();
        assert!(matches!(err, LangError::Prefix { lang: "python", offset: 8, .. }), "{err}");
        // Mode none needs no valid prefix.
        let task = Task::new(Some(lang("python")), Mode::None, "def f(x)]");
        assert!(matches!(task.constraint(&mut kits()).unwrap(), LangConstraint::None(_)));
    }

    #[test]
    fn syncode_without_a_store_and_unsupported_modes_are_refused() {
        let err = Task::new(Some(lang("python")), Mode::Syncode, "")
            .constraint(&mut kits())
            .err()
            .unwrap();
        assert!(err.to_string().contains("no SynCode mask store"), "{err}");
        let err = Task::new(Some(lang("slua")), Mode::Syncode, "x")
            .constraint(&mut kits())
            .err()
            .unwrap();
        assert!(matches!(err, LangError::Mode { mode: Mode::Syncode, lang: "slua", .. }), "{err}");
    }

    #[test]
    fn a_fenced_chat_has_the_system_message_and_ends_inside_the_fence() {
        let framing = Framing::Chat { system: true, fence: true, full: false };
        let task =
            Task::new(Some(lang("python")), Mode::Mask, "  add two numbers ").framing(framing);
        let p = task.prompt(None).unwrap();
        let expected = chatml(
            &[
                Message::new(
                    "system",
                    "You are a helpful coding assistant. Answer with Python code only.",
                ),
                Message::new("user", "add two numbers"),
            ],
            true,
        ) + "```python\n";
        assert_eq!(p, expected);
        let config = task.configure(GenerateConfig::default());
        assert!(!config.heal_prompt);
        assert!(config.stop_strings.iter().any(|s| s == "\nr"), "top-level stops");
        // The constraint starts from an empty program.
        let c = task.constraint(&mut kits()).unwrap();
        assert!(c.allows(b"def f"));
    }

    #[test]
    fn a_fenced_go_answer_starts_after_the_package_clause() {
        let framing = Framing::Chat { system: true, fence: true, full: false };
        let task = Task::new(Some(lang("go")), Mode::Mask, "add").framing(framing);
        assert!(task.prompt(None).unwrap().ends_with("```go\npackage main\n\n"));
        let c = task.constraint(&mut kits()).unwrap();
        assert!(
            c.allows(b"func f() {\n}\n") && !c.allows(b"package"),
            "the constraint is primed with the clause"
        );
    }

    #[test]
    fn an_slua_task_guesses_its_kind_and_takes_the_effects() {
        let task = Task::new(Some(lang("slua")), Mode::Mask, "an effect that burns");
        assert_eq!(task.program_kind(), "effect");
        assert_eq!(task.clone().kind("talent").program_kind(), "talent");
        let prompt = task.prompt(None).unwrap();
        assert!(prompt.contains("Write an effect that burns."), "{prompt}");
        assert!(
            !prompt.contains("Answer with sLua code only."),
            "the command line's chat has no system message"
        );
        let c = task.constraint(&mut kits()).unwrap();
        assert!(c.allows(b"effect") && !c.allows(b"talent"));
        let talent =
            Task::new(Some(lang("slua")), Mode::Rejection, "a talent").effects(vec!["Burn".into()]);
        assert!(talent.constraint(&mut kits()).unwrap().allows(b"talent"));
        let config = talent.configure(GenerateConfig::default());
        assert!(config.stop_strings.is_empty() && !config.heal_prompt);
    }

    #[test]
    fn a_fim_task_shows_the_suffix_answers_with_the_prefix_and_joins_it() {
        let task = Task::fim(
            lang("python"),
            Mode::Mask,
            "def f(x):\n    return x + ",
            "\n\nprint(f(1))\n",
        );
        let p = task.prompt(None).unwrap();
        assert!(p.contains("```python\n\n\nprint(f(1))\n\n```"), "{p}");
        assert!(p.ends_with("<|im_start|>assistant\n```python\ndef f(x):\n    return x + "), "{p}");
        let config = task.configure(GenerateConfig::default());
        assert!(config.heal_prompt && config.stop_strings.is_empty(), "EOS ends the middle");
        let none = Task::fim(lang("python"), Mode::None, "x = ", "\n")
            .configure(GenerateConfig::default());
        assert_eq!(none.stop_strings, vec!["```".to_owned()]);
        let mut c = task.constraint(&mut kits()).unwrap();
        assert_eq!(c.inspect().kind, "fim");
        assert!(!c.is_complete(), "an empty middle does not join");
        assert!(c.allows(b"x") && !c.allows(b")"));
        assert!(c.commit(b"x").is_ok() && c.is_complete(), "`return x + x` joins the suffix");
        // A suffix no middle can join is refused before generating, naming its byte.
        let err = Task::fim(lang("python"), Mode::Mask, "x = ", "1 1\n2 2\n")
            .constraint(&mut kits())
            .err()
            .unwrap();
        assert!(matches!(err, LangError::Fim { lang: "python", .. }), "{err}");
        let err =
            Task::fim(lang("slua"), Mode::Mask, "", "").constraint(&mut kits()).err().unwrap();
        assert!(matches!(err, LangError::Mode { lang: "slua", .. }), "{err}");
        // Mode names has no layer across the cursor: refused, not run as mode mask.
        let err = Task::fim(lang("python"), Mode::Names, "x = ", "\n")
            .constraint(&mut kits())
            .err()
            .unwrap();
        assert!(matches!(err, LangError::Mode { mode: Mode::Names, lang: "python", .. }), "{err}");
        assert!(err.to_string().contains("use mode mask"), "{err}");
    }

    #[test]
    fn without_a_language_the_request_is_the_user_message_or_raw() {
        let task = Task::new(None, Mode::None, "Hi");
        assert_eq!(task.prompt(None).unwrap(), chatml(&[Message::new("user", "Hi")], true));
        assert_eq!(task.clone().framing(Framing::Raw).prompt(None).unwrap(), "Hi");
        assert!(matches!(task.constraint(&mut kits()).unwrap(), LangConstraint::None(_)));
        assert!(task.configure(GenerateConfig::default()).stop_strings.is_empty());
    }
}
