"""The processors' wrap-up (on by default): a toy "model" whose logits always prefer
opening one more parenthesis never closes its program under the plain mask, and closes
it within the budget (end-of-sequence sampled, CPython's ast.parse accepts the text)
once the finishing mask takes over. Engine-free: the llama-cpp-python processor is
driven with NumPy rows as llama.cpp passes them (the transformers processor, which
needs torch, is driven the same way in test_hf.py)."""

import ast

import numpy as np
import pytest

import espalier
from espalier.llama_cpp import LogitsProcessor
from toy_model import greedy_ids, ranked_logits

TOKENS = [b"<eos>", b"x", b" =", b" 1", b"\n", b"(", b")", b" +"]
# The toy model's preference, best first: it would nest parentheses forever.
PREFERENCE = [b"(", b" 1", b" +", b")", b"\n", b"<eos>", b"x", b" ="]
PROMPT = "x = ("


def toy_vocab():
    return espalier.Vocabulary.from_token_bytes(TOKENS, eos_token_id=0)


def toy_logits():
    return ranked_logits(TOKENS, PREFERENCE)


def greedy(proc, budget, prompt_ids=(1, 2, 5)):
    """Greedy decoding of the toy model under `proc` for at most `budget` tokens, as
    llama-cpp-python drives a processor: the generated ids (EOS included if sampled)."""
    return greedy_ids(proc, toy_logits(), prompt_ids, budget)


def text_of(ids):
    return b"".join(TOKENS[i] for i in ids if i != 0).decode()


def test_without_the_budget_the_processor_asks_for_it_or_the_opt_out():
    c = espalier.Constraint.python(toy_vocab(), prompt=PROMPT)
    with pytest.raises(espalier.EspalierError, match="max_tokens"):
        LogitsProcessor(c)
    with pytest.raises(espalier.EspalierError, match="positive"):
        LogitsProcessor(c, max_tokens=0)
    with pytest.raises(espalier.EspalierError, match="wrap_up"):
        LogitsProcessor(c, max_tokens=10, wrap_up=-1)
    LogitsProcessor(c, wrap_up=None)  # the opt-out needs no budget


def test_plain_mask_runs_out_of_budget_mid_expression():
    proc = LogitsProcessor(espalier.Constraint.python(toy_vocab(), prompt=PROMPT), wrap_up=None)
    out = greedy(proc, 24)
    assert 0 not in out and len(out) == 24
    assert set(out) == {TOKENS.index(b"(")}  # "(((((...": never closes
    with pytest.raises(SyntaxError):
        ast.parse(PROMPT + text_of(out))


@pytest.mark.parametrize("window", [8, 32])
def test_the_default_wrap_up_closes_the_program_within_the_budget(window):
    budget = 24
    proc = LogitsProcessor(espalier.Constraint.python(toy_vocab(), prompt=PROMPT), max_tokens=budget, wrap_up=window)
    out = greedy(proc, budget)
    assert out[-1] == 0, f"no end-of-sequence within {budget} tokens: {text_of(out)!r}"
    ast.parse(PROMPT + text_of(out))
    started = proc.wrap_up.started_at
    assert started is not None and started <= max(budget - window, 0)
    # Before the wrap-up the toy model nested parentheses as it likes.
    assert set(out[:started]) <= {TOKENS.index(b"(")}


def test_the_finishing_distance_starts_the_wrap_up_before_the_window():
    """Window 0 (the distance alone): 12 open parentheses need at least 13 tokens to
    close, so with a budget of 20 the wrap-up must begin on the distance, early enough
    to finish."""
    budget = 20
    prompt = "x = " + "(" * 12
    ids = [1, 2] + [5] * 12
    proc = LogitsProcessor(espalier.Constraint.python(toy_vocab(), prompt=prompt), max_tokens=budget, wrap_up=0)
    out = greedy(proc, budget, ids)
    assert out[-1] == 0, text_of(out)
    ast.parse(prompt + text_of(out))
    assert proc.wrap_up.started_at is not None and proc.wrap_up.started_at < budget - 13


def test_the_default_window_is_the_evaluations_and_the_margin_is_the_decoders():
    assert espalier.wrap_up.WINDOW == 32
    assert espalier.WRAP_UP_MARGIN == 4


def test_mask_calls_report_whether_the_finishing_mask_narrowed():
    c = espalier.Constraint.python(toy_vocab(), prompt=PROMPT)
    plain = c.allowed_tokens()
    narrowed = c.allowed_tokens(wrap_up=True)
    assert set(narrowed) < set(plain) and narrowed
    row = toy_logits()
    assert c.mask_logits(row, wrap_up=True) is True
    assert sorted(np.flatnonzero(np.isfinite(row))) == narrowed
    assert c.mask_logits(toy_logits()) is False
    d = c.finishing_distance(100)
    # "x = ()" (an empty tuple) is already a program: one token, ")", may finish it.
    assert d is not None and 1 <= d <= 100
    assert TOKENS.index(b")") in narrowed
    c.commit(TOKENS.index(b")"))
    assert c.is_complete() and c.finishing_distance(100) == 0
