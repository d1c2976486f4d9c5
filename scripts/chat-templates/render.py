#!/usr/bin/env python3
"""The oracle of crates/decode/tests/it/chat_templates.rs: chat templates rendered by
Hugging Face transformers' own `apply_chat_template` code
(`transformers.utils.chat_template_utils.render_jinja_template`), written with their
inputs to crates/decode/tests/data/chat-templates.json.

Templates: those inside llama.cpp's vocabulary GGUFs (Qwen2, Phi-3, Command-R), the
model families' templates that llama.cpp ships in models/templates (Qwen2.5, Llama-3.x,
DeepSeek-R1 distills, SmolLM3 ...), and Espalier's own family templates
(`ChatFamily`, read from crates/decode/src/chat_family.rs). Conversations: a system and
a user turn (what the language prompts send), a user turn alone, and a longer chat
with padded assistant text (as llama.cpp's test-chat-template.cpp), each with and
without the generation prompt. `date_string` is passed as "26 Jul 2024" (the default of
the Llama-3.x templates when no `strftime_now` exists, as in Espalier).

Usage: VENV/bin/python scripts/chat-templates/render.py LLAMA_CPP_SRC OUT.json
(VENV with `pip install transformers jinja2 numpy`; LLAMA_CPP_SRC = the llama-cpp-python
sdist's vendor/llama.cpp, as scripts/bench-llamacpp.sh unpacks it).
"""
import json
import os
import re
import sys

from transformers.utils.chat_template_utils import render_jinja_template

SRC, OUT = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "gguf-py"))
import gguf  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")

TOKENS = {  # bos, eos
    "qwen": ("<|endoftext|>", "<|im_end|>"),
    "llama3": ("<|begin_of_text|>", "<|eot_id|>"),
    "llama2": ("<s>", "</s>"),
    "deepseek": ("<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    "phi3": ("<s>", "<|endoftext|>"),
    "command-r": ("<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>"),
    "smol": ("<|im_start|>", "<|im_end|>"),
}

CONVERSATIONS = {
    "system+user": [{"role": "system", "content": "You write Python."},
                    {"role": "user", "content": "Add two numbers.\nUse a function."}],
    "user": [{"role": "user", "content": "Write hello world in Python."}],
    "chat": [{"role": "system", "content": "You are a helpful assistant"}, {"role": "user", "content": "Hello"},
             {"role": "assistant", "content": "Hi there"}, {"role": "user", "content": "Who are you"},
             {"role": "assistant", "content": "   I am an assistant   "}, {"role": "user", "content": "Another question"}],
}


def vocab_template(name):
    r = gguf.GGUFReader(os.path.join(SRC, "models", f"ggml-vocab-{name}.gguf"))
    f = r.fields["tokenizer.chat_template"]
    return bytes(f.parts[f.data[0]]).decode()


def family_templates():
    text = open(os.path.join(ROOT, "crates/decode/src/chat_family.rs"), encoding="utf-8").read()
    out = {}
    for name, lit in re.findall(r'^const (\w+): &str = "(.*)";$', text, re.M):
        out[name] = json.loads('"' + lit + '"')  # the Rust literals use only JSON's escapes
    return out


def main():
    templates = [  # name, source, template, token family
        ("qwen2-vocab", "ggml-vocab-qwen2.gguf", vocab_template("qwen2"), "qwen"),
        ("phi3-vocab", "ggml-vocab-phi-3.gguf", vocab_template("phi-3"), "phi3"),
        ("command-r-vocab", "ggml-vocab-command-r.gguf", vocab_template("command-r"), "command-r"),
    ]
    for file, tokens in [("Qwen-Qwen2.5-7B-Instruct", "qwen"), ("meta-llama-Llama-3.1-8B-Instruct", "llama3"),
                         ("meta-llama-Llama-3.2-3B-Instruct", "llama3"), ("meta-llama-Llama-3.3-70B-Instruct", "llama3"),
                         ("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", "deepseek"),
                         ("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "deepseek"), ("HuggingFaceTB-SmolLM3-3B", "smol"),
                         ("Qwen-Qwen3-0.6B", "qwen"), ("Qwen3-Coder", "qwen"), ("microsoft-Phi-3.5-mini-instruct", "phi3"),
                         ("mistralai-Mistral-Nemo-Instruct-2407", "llama2"), ("google-gemma-2-2b-it", "llama2")]:
        path = os.path.join(SRC, "models", "templates", file + ".jinja")
        templates.append((file, "llama.cpp models/templates/" + file + ".jinja", open(path, encoding="utf-8").read(), tokens))
    fam = family_templates()
    for const, tokens in [("CHATML", "smol"), ("LLAMA2", "llama2"), ("LLAMA3", "llama3"), ("DEEPSEEK_CODER", "deepseek")]:
        templates.append(("family-" + const.lower(), "crates/decode/src/chat_family.rs " + const, fam[const], tokens))
    cases, listed = [], []
    for name, source, template, tokens in templates:
        bos, eos = TOKENS[tokens]
        listed.append({"name": name, "source": source, "bos_token": bos, "eos_token": eos, "template": template})
        for conv_name, messages in CONVERSATIONS.items():
            for gen in (True, False):
                try:
                    rendered, _ = render_jinja_template(conversations=[messages], chat_template=template,
                                                        add_generation_prompt=gen, bos_token=bos, eos_token=eos,
                                                        date_string="26 Jul 2024")
                    expected, error = rendered[0], None
                except Exception as e:  # noqa: BLE001  (a template that refuses the conversation)
                    expected, error = None, f"{type(e).__name__}: {e}"
                cases.append({"template": name, "conversation": conv_name, "add_generation_prompt": gen,
                              "expected": expected, "error": error})
        print(name, "rendered" if all(c["expected"] is not None for c in cases if c["template"] == name) else "refuses some")
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump({"conversations": CONVERSATIONS, "templates": listed, "cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")


main()
