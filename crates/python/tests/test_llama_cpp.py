"""llama-cpp-python with espalier.llama_cpp.LogitsProcessor: the first 20 HumanEval
prompts (as a chat whose answer starts with the prompt's code in a fence, rendered
with the GGUF's chat template), greedy, under the Python constraint: no finished
completion may be a syntax error (CPython's ast.parse is the oracle), and most must
hold code. Skipped where llama_cpp does not import (scripts/bench-llamacpp.sh builds
it for this CPU)."""

import ast

import pytest

import espalier
from humaneval import MODEL, TOP_LEVEL_STOPS, humaneval_prompts

llama_cpp = pytest.importorskip("llama_cpp")


@pytest.fixture(scope="module")
def llm():
    if not MODEL.exists():
        pytest.skip(f"{MODEL} is missing: run scripts/fetch-model.sh")
    return llama_cpp.Llama(model_path=str(MODEL), n_ctx=2048, n_threads=2, verbose=False, seed=0)


def test_humaneval_20_under_the_python_constraint(llm):
    from espalier.llama_cpp import LogitsProcessor

    vocab = espalier.Vocabulary.from_gguf(str(MODEL))
    assert len(vocab) == llm.n_vocab()
    jinja2 = pytest.importorskip("jinja2")
    template = jinja2.Template(llm.metadata["tokenizer.chat_template"])
    finished = errors = bodies = 0
    for prompt in humaneval_prompts(20):
        # Fed the raw prompt, SmolLM2-135M-Instruct ends the function at once
        # ("\n# Test the function..."): every completion would be cut empty by the stop
        # strings and the check would be vacuous. So the CLI's fenced chat framing.
        user = f"Complete this Python function:\n```python\n{prompt}```"
        text = template.render(messages=[{"role": "user", "content": user}], add_generation_prompt=True)
        proc = LogitsProcessor(espalier.Constraint.python(vocab, prompt=prompt))
        out = llm.create_completion(
            text + "```python\n" + prompt, max_tokens=256, temperature=0.0, stop=TOP_LEVEL_STOPS,
            logits_processor=llama_cpp.LogitsProcessorList([proc]),
        )
        choice = out["choices"][0]
        proc.raise_error()  # llama-cpp-python swallows exceptions raised in processors
        # The constraint saw every token llama.cpp sampled (up to the stop string).
        assert proc.constraint.text.decode("utf-8", "replace").startswith(choice["text"][:50])
        if choice["finish_reason"] != "stop":
            continue
        finished += 1
        bodies += bool(choice["text"].strip())
        try:
            ast.parse(prompt + choice["text"])
        except SyntaxError as e:
            errors += 1
            print(f"syntax error: {e}\n{prompt + choice['text']}")
    print(f"finished {finished}/20 ({bodies} not empty), syntax errors {errors}")
    assert errors == 0
    assert finished >= 5, f"only {finished} of 20 completions finished"
    assert bodies >= finished // 2, (bodies, finished)


def test_width_mismatch_is_an_exception(llm):
    import numpy as np
    from espalier.llama_cpp import LogitsProcessor

    small = espalier.Vocabulary.from_token_bytes([b"<eos>", b"x"], eos_token_id=0)
    proc = LogitsProcessor(espalier.Constraint.python(small))
    with pytest.raises(espalier.VocabMismatchError):
        proc(np.zeros(3, np.intc), np.zeros(llm.n_vocab(), np.float32))
