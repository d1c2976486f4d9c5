"""llama-cpp-python with espalier.llama_cpp.LogitsProcessor: the first 20 HumanEval
prompts, greedy, 128 tokens, under the Python constraint: no finished generation may
be a syntax error (CPython's ast.parse on the prompt and the generated text up to its
last statement boundary, see `humaneval.checked_text`), and most checked texts must
hold code. Skipped where llama_cpp does not import (scripts/bench-llamacpp.sh builds
it for this CPU)."""

import ast

import pytest

import espalier
from humaneval import MODEL, TOP_LEVEL_STOPS, checked_text, humaneval_prompts

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
    finished = errors = checked = 0
    for prompt in humaneval_prompts(20):
        proc = LogitsProcessor(espalier.Constraint.python(vocab, prompt=prompt))
        out = llm.create_completion(
            prompt, max_tokens=128, temperature=0.0,
            logits_processor=llama_cpp.LogitsProcessorList([proc]),
        )
        choice = out["choices"][0]
        proc.raise_error()  # llama-cpp-python swallows exceptions raised in processors
        text = choice["text"]
        # The constraint saw every token llama.cpp sampled (but the last one).
        assert text.startswith(proc.constraint.text.decode("utf-8", "replace")[:50])
        ended = choice["finish_reason"] == "stop"  # end-of-sequence (no stop strings)
        if not (ended or any(s in text for s in TOP_LEVEL_STOPS)):
            continue
        finished += 1
        body = text if ended else checked_text(text)
        checked += bool(body.strip())
        try:
            ast.parse(prompt + body)
        except SyntaxError as e:
            errors += 1
            print(f"syntax error: {e}\n{prompt + body}")
    print(f"finished {finished}/20 ({checked} checked texts not empty), syntax errors {errors}")
    assert errors == 0
    assert finished >= 5, f"only {finished} of 20 generations finished"
    assert checked >= finished // 2, (checked, finished)


def test_width_mismatch_is_an_exception(llm):
    import numpy as np
    from espalier.llama_cpp import LogitsProcessor

    small = espalier.Vocabulary.from_token_bytes([b"<eos>", b"x"], eos_token_id=0)
    proc = LogitsProcessor(espalier.Constraint.python(small))
    with pytest.raises(espalier.VocabMismatchError):
        proc(np.zeros(3, np.intc), np.zeros(llm.n_vocab(), np.float32))
