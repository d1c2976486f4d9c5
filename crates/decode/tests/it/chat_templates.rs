//! Chat templates rendered by minijinja (`prompt::render_jinja`) against Hugging Face
//! transformers' `apply_chat_template` (`tests/data/chat-templates.json`, written by
//! `scripts/chat-templates/render.py`): the templates inside llama.cpp's vocabulary
//! GGUFs (Qwen2, Phi-3, Command-R), the families' templates llama.cpp ships (Qwen2.5,
//! Qwen3, Qwen3-Coder, Llama-3.1/3.2/3.3, DeepSeek-R1 distills, SmolLM3, Phi-3.5,
//! Mistral-Nemo, Gemma-2) and Espalier's own family formats (`ChatFamily`), over three
//! conversations with and without the generation prompt. Every output must be equal
//! byte for byte, and a template that refuses a conversation (`raise_exception`)
//! must be an error here too.

use espalier_decode::prompt::{render_chat_with, render_jinja, Chat, ChatFamily, Message};
use serde_json::Value;

fn fixture() -> Value {
    serde_json::from_str(include_str!("../data/chat-templates.json")).unwrap()
}

fn messages(v: &Value) -> Vec<Message> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| Message::new(m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect()
}

#[test]
fn minijinja_renders_what_transformers_renders() {
    let f = fixture();
    let templates = f["templates"].as_array().unwrap();
    let cases = f["cases"].as_array().unwrap();
    assert!(
        templates.len() >= 19 && cases.len() == templates.len() * 6,
        "{} templates, {} cases",
        templates.len(),
        cases.len()
    );
    let mut failures = Vec::new();
    for case in cases {
        let name = case["template"].as_str().unwrap();
        let t = templates.iter().find(|t| t["name"] == name).unwrap();
        let msgs = messages(&f["conversations"][case["conversation"].as_str().unwrap()]);
        let gen = case["add_generation_prompt"].as_bool().unwrap();
        let ours = render_jinja(
            t["template"].as_str().unwrap(),
            &msgs,
            gen,
            t["bos_token"].as_str().unwrap(),
            t["eos_token"].as_str().unwrap(),
        );
        let what = format!("{name} / {} / generation prompt {gen}", case["conversation"]);
        match (case["expected"].as_str(), ours) {
            (Some(want), Ok(got)) if got == want => {}
            (Some(want), Ok(got)) => {
                failures.push(format!("{what}:\n  want {want:?}\n  got  {got:?}"))
            }
            (Some(_), Err(e)) => {
                failures.push(format!("{what}: transformers renders it, ours fails: {e}"))
            }
            (None, Ok(got)) => failures.push(format!(
                "{what}: transformers refuses ({}), ours renders {got:?}",
                case["error"]
            )),
            (None, Err(_)) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn a_template_that_refuses_a_system_turn_gets_it_in_the_user_turn() {
    let f = fixture();
    let gemma = f["templates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "google-gemma-2-2b-it")
        .unwrap();
    let chat = Chat {
        template: gemma["template"].as_str(),
        bos_token: "<bos>",
        eos_token: "<eos>",
        fallback: ChatFamily::ChatMl,
    };
    let msgs =
        [Message::new("system", "You write Python."), Message::new("user", "Add two numbers.")];
    assert!(render_jinja(chat.template.unwrap(), &msgs, true, "<bos>", "<eos>").is_err());
    let text = render_chat_with(&chat, &msgs, true).unwrap();
    assert_eq!(text, "<bos><start_of_turn>user\nYou write Python.\n\nAdd two numbers.<end_of_turn>\n<start_of_turn>model\n");
}

#[test]
fn without_a_template_the_family_format_is_used() {
    let msgs = [Message::new("user", "Add two numbers.")];
    let deepseek = Chat {
        template: None,
        bos_token: "<s>",
        eos_token: "</s>",
        fallback: ChatFamily::DeepSeekCoder,
    };
    let text = render_chat_with(&deepseek, &msgs, true).unwrap();
    assert!(
        text.starts_with("<s>You are an AI programming assistant")
            && text.ends_with("### Instruction:\nAdd two numbers.\n### Response:\n"),
        "{text:?}"
    );
    // A template minijinja cannot parse, whose text shows its family: that family.
    let broken =
        Chat { template: Some("{% broken %}<|start_header_id|><|end_header_id|>"), ..deepseek };
    let text = render_chat_with(&broken, &msgs, true).unwrap();
    assert_eq!(text, "<s><|start_header_id|>user<|end_header_id|>\n\nAdd two numbers.<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
    let unknown = Chat { template: Some("{% broken %}"), ..deepseek };
    assert!(render_chat_with(&unknown, &msgs, true).is_err());
}

#[test]
fn tojson_writes_what_pythons_json_dumps_writes() {
    let msgs = [Message::new("user", "a <b> & \"c\" é")];
    let compact = render_jinja("{{ messages | tojson }}", &msgs, false, "", "").unwrap();
    assert_eq!(compact, r#"[{"role": "user", "content": "a <b> & \"c\" é"}]"#);
    let indented =
        render_jinja("{{ messages[0] | tojson(indent=2) }}", &msgs, false, "", "").unwrap();
    assert_eq!(indented, "{\n  \"role\": \"user\",\n  \"content\": \"a <b> & \\\"c\\\" é\"\n}");
}
