//! The chat formats of the model families Espalier runs, each as its reference Jinja
//! template (rendered by [`crate::prompt::render_jinja`], like a file's own), for
//! files without a `tokenizer.chat_template` or with one that does not render here;
//! and the detector that names a template's family from its text, as llama.cpp's
//! `llm_chat_detect_template` does.

/// A family's chat format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatFamily {
    /// `<|im_start|>role\n...<|im_end|>\n`: SmolLM2, Qwen2 / Qwen2.5-Coder.
    ChatMl,
    /// `[INST] <<SYS>>\n...\n<</SYS>>\n\n... [/INST]`: Llama-2 chat, CodeLlama instruct.
    Llama2,
    /// `<|start_header_id|>role<|end_header_id|>\n\n...<|eot_id|>`: Llama-3.
    Llama3,
    /// `### Instruction:\n...\n### Response:`: DeepSeek-Coder instruct.
    DeepSeekCoder,
}

/// The generic ChatML template (teknium/OpenHermes-2.5's; SmolLM2's and Qwen2's add
/// only a default system message).
const CHATML: &str = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/// meta-llama/Llama-2-7b-chat-hf's template.
const LLAMA2: &str = "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set system_message = false %}{% endif %}{% for message in loop_messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set content = message['content'] %}{% endif %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}";

/// meta-llama/Meta-Llama-3-8B-Instruct's template.
const LLAMA3: &str = "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";

/// deepseek-ai/deepseek-coder-33b-instruct's template (as llama.cpp's
/// `test-chat-template.cpp` quotes it).
const DEEPSEEK_CODER: &str = "{% if not add_generation_prompt is defined %}\n{% set add_generation_prompt = false %}\n{% endif %}\n{%- set ns = namespace(found=false) -%}\n{%- for message in messages -%}\n    {%- if message['role'] == 'system' -%}\n        {%- set ns.found = true -%}\n    {%- endif -%}\n{%- endfor -%}\n{{bos_token}}{%- if not ns.found -%}\n{{'You are an AI programming assistant, utilizing the Deepseek Coder model, developed by Deepseek Company, and you only answer questions related to computer science. For politically sensitive questions, security and privacy issues, and other non-computer science questions, you will refuse to answer\\n'}}\n{%- endif %}\n{%- for message in messages %}\n    {%- if message['role'] == 'system' %}\n{{ message['content'] }}\n    {%- else %}\n        {%- if message['role'] == 'user' %}\n{{'### Instruction:\\n' + message['content'] + '\\n'}}\n        {%- else %}\n{{'### Response:\\n' + message['content'] + '\\n<|EOT|>\\n'}}\n        {%- endif %}\n    {%- endif %}\n{%- endfor %}\n{% if add_generation_prompt %}\n{{'### Response:'}}\n{% endif %}";

impl ChatFamily {
    /// Every family.
    pub const ALL: [ChatFamily; 4] =
        [ChatFamily::ChatMl, ChatFamily::Llama2, ChatFamily::Llama3, ChatFamily::DeepSeekCoder];

    /// The family's reference template.
    pub fn template(self) -> &'static str {
        match self {
            ChatFamily::ChatMl => CHATML,
            ChatFamily::Llama2 => LLAMA2,
            ChatFamily::Llama3 => LLAMA3,
            ChatFamily::DeepSeekCoder => DEEPSEEK_CODER,
        }
    }

    /// A short name (`chatml`, `llama2`, `llama3`, `deepseek-coder`).
    pub fn name(self) -> &'static str {
        match self {
            ChatFamily::ChatMl => "chatml",
            ChatFamily::Llama2 => "llama2",
            ChatFamily::Llama3 => "llama3",
            ChatFamily::DeepSeekCoder => "deepseek-coder",
        }
    }

    /// The family a template's text shows, by the markers llama.cpp's detector looks
    /// for (ChatML first, as there).
    pub fn detect(template: &str) -> Option<ChatFamily> {
        let has = |s: &str| template.contains(s);
        if has("<|im_start|>") {
            Some(ChatFamily::ChatMl)
        } else if has("<|start_header_id|>") && has("<|end_header_id|>") {
            Some(ChatFamily::Llama3)
        } else if has("### Instruction:") && has("<|EOT|>") {
            Some(ChatFamily::DeepSeekCoder)
        } else if has("[INST]") {
            Some(ChatFamily::Llama2)
        } else {
            None
        }
    }

    /// The family of a vocabulary without a template, by its pre-tokenizer
    /// (`tokenizer.ggml.pre`): DeepSeek-Coder's and Llama-3's are their own; SmolLM2's,
    /// Qwen2's and the rest get ChatML (what llama.cpp falls back to as well).
    pub fn for_vocabulary(pre_tokenizer: Option<&str>) -> ChatFamily {
        match pre_tokenizer {
            Some("deepseek-coder") => ChatFamily::DeepSeekCoder,
            Some("llama3" | "llama-v3" | "llama-bpe") => ChatFamily::Llama3,
            _ => ChatFamily::ChatMl,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_template_is_detected_as_its_own_family() {
        for family in ChatFamily::ALL {
            assert_eq!(ChatFamily::detect(family.template()), Some(family), "{}", family.name());
        }
        assert_eq!(ChatFamily::detect("{{ messages[0]['content'] }}"), None);
        assert_eq!(ChatFamily::for_vocabulary(Some("deepseek-coder")), ChatFamily::DeepSeekCoder);
        assert_eq!(ChatFamily::for_vocabulary(Some("qwen2")), ChatFamily::ChatMl);
        assert_eq!(ChatFamily::for_vocabulary(None), ChatFamily::ChatMl);
    }
}
