"""llama-cpp-python with espalier.llama_cpp.LogitsProcessor: HumanEval prompts, greedy,
under the Python constraint with the default wrap-up: no finished generation may be a
syntax error (CPython's ast.parse on the prompt and the generated text up to its last
statement boundary, see `humaneval.checked_text`; all of it after end-of-sequence),
every generation ends with end-of-sequence within the budget (the wrap-up's promise),
and most checked texts must hold code: the first 6 prompts, 96 tokens (CI's size: the
portable backend is slow on 2 shared cores); ESPALIER_SLOW=1: 20 prompts, 128 tokens.

Always: scripts/test-python.sh installs llama-cpp-python 0.3.36 and says how in
ESPALIER_LLAMA_CPP: on a CPU with AVX-512 the wheel of ../shared/tools as it is
(`wheel`), elsewhere that wheel with its CPU backend rebuilt portable by
scripts/bench-llamacpp.sh (`portable`; 101 s cold on the 2-core dev box). A missing
llama_cpp fails; nothing is skipped."""

import ast
import importlib
import os
import sys

import pytest

import espalier
from humaneval import MODEL, TOP_LEVEL_STOPS, checked_text, humaneval_prompts

from slow_gate import slow

INSTALLED = os.environ.get("ESPALIER_LLAMA_CPP", "none")  # set by scripts/test-python.sh
import llama_cpp  # noqa: E402

if INSTALLED == "wheel":
    # The wheel's extra weight buffers (AMX) crash on batched prompts on AMX machines;
    # ../shared/tools/llamacpp_noamx.py turns them off (see ../shared/tools/README.md).
    sys.path.insert(0, os.environ["ESPALIER_TOOLS"])
    importlib.import_module("llamacpp_noamx")  # patches llama_cpp on import


@pytest.fixture(scope="module")
def llm():
    assert MODEL.exists(), f"{MODEL} is missing: run scripts/fetch-model.sh"
    return llama_cpp.Llama(model_path=str(MODEL), n_ctx=2048, n_threads=2, verbose=False, seed=0)


def test_humaneval_under_the_python_constraint(llm):
    from espalier.llama_cpp import LogitsProcessor

    vocab = espalier.Vocabulary.from_gguf(str(MODEL))
    assert len(vocab) == llm.n_vocab()
    n, budget = (20, 128) if slow() else (6, 96)
    finished = errors = checked = ended_all = 0
    for prompt in humaneval_prompts(n):
        proc = LogitsProcessor(espalier.Constraint.python(vocab, prompt=prompt), max_tokens=budget)
        out = llm.create_completion(
            prompt, max_tokens=budget, temperature=0.0,
            logits_processor=llama_cpp.LogitsProcessorList([proc]),
        )
        choice = out["choices"][0]
        proc.raise_error()  # llama-cpp-python swallows exceptions raised in processors
        text = choice["text"]
        # The constraint saw every token llama.cpp sampled (but the last one).
        assert text.startswith(proc.constraint.text.decode("utf-8", "replace")[:50])
        ended = choice["finish_reason"] == "stop"  # end-of-sequence (no stop strings)
        ended_all += ended
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
    print(f"finished {finished}/{n} ({ended_all} with end-of-sequence, {checked} checked texts not empty), "
          f"syntax errors {errors}")
    assert errors == 0
    assert ended_all == n, f"only {ended_all} of {n} generations ended within {budget} tokens"
    assert checked >= finished // 2, (checked, finished)


def test_width_mismatch_is_an_exception(llm):
    import numpy as np
    from espalier.llama_cpp import LogitsProcessor

    small = espalier.Vocabulary.from_token_bytes([b"<eos>", b"x"], eos_token_id=0)
    proc = LogitsProcessor(espalier.Constraint.python(small), wrap_up=None)
    with pytest.raises(espalier.VocabMismatchError):
        proc(np.zeros(3, np.intc), np.zeros(llm.n_vocab(), np.float32))
