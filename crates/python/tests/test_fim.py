"""Fill-in-the-middle in the package: `Constraint.fim(vocab, prefix=..., suffix=...)`.
Masks against the constraint's own verdict on every token (a clone per token),
end-of-sequence exactly when prefix + middle + suffix parses (CPython's ast.parse is
the oracle), and bad requests as PromptRejectedError naming the part and the offset."""

import ast
from pathlib import Path

import numpy as np
import pytest

import espalier
from espalier import Constraint, Vocabulary

ROOT = Path(__file__).resolve().parents[3]
MODEL = ROOT / "static" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"

# The vocabulary of the Rust FIM tests (crates/constraint/src/fim.rs).
WORDS = [b"<eos>", b"<bos>", b"x", b" ", b"o", b"(", b")", b"]", b"\n", b"    ", b"if", b" x", b":", b"1", b"'",
         b"fo", b"o(", b" +", b"y"]


@pytest.fixture(scope="module")
def toy():
    return Vocabulary.from_token_bytes(WORDS, eos_token_id=0, special_ids=[1])


def by_commit(c, n):
    """The tokens whose commit a clone of `c` accepts (EOS: when complete)."""
    out = set()
    for tok in range(n):
        d = c.clone()
        try:
            d.commit(tok)
        except espalier.TokenRejectedError:
            continue
        out.add(tok)
    return out


def test_fim_masks_follow_the_suffix(toy):
    prefix, suffix = "def f(a):\n    return fo", "o(a, [1,\n 2])\n"
    c = Constraint.fim(toy, prefix=prefix, suffix=suffix)
    assert c.inspect()["kind"] == "fim" and c.language == "python"
    mask = np.zeros(len(WORDS), np.bool_)
    for step in [b"o", b"(", b"x", b")", b" +", b" ", b"fo"]:
        c.fill_mask(mask)
        got = set(np.flatnonzero(mask).tolist())
        assert got == by_commit(c, len(WORDS)), c.text
        assert (0 in got) == c.is_complete()
        c.commit(WORDS.index(step))
    # `return foo(x) + fo` + `o(a, [1,\n 2])`: complete, and CPython agrees.
    assert c.is_complete() and 0 in c.allowed_tokens()
    ast.parse(prefix + c.text.decode() + suffix)
    with pytest.raises(espalier.TokenRejectedError):
        c.commit(WORDS.index(b")"))
    c.commit(0)
    assert c.finished


def test_fim_bad_requests_name_the_offset(toy):
    with pytest.raises(espalier.PromptRejectedError, match="prefix") as e:
        Constraint.fim(toy, prefix="x = )", suffix="")
    assert e.value.part == "prefix" and e.value.offset == 4
    with pytest.raises(espalier.PromptRejectedError, match="no middle joins the suffix") as e:
        Constraint.fim(toy, prefix="x = 1\n", suffix="\ny = = 2\n")
    assert e.value.part == "suffix" and 0 < e.value.offset <= len("\ny = = 2\n")
    with pytest.raises(espalier.PromptRejectedError, match="offset 5") as e:
        Constraint.fim(toy, prefix=b"x = '\xe9", suffix="'\n")
    assert e.value.part == "prefix" and e.value.offset == 5
    with pytest.raises(TypeError):
        Constraint.fim(toy, prefix=1, suffix="")
    with pytest.raises(espalier.GrammarError, match="python only"):
        Constraint.fim(toy, prefix="package main\n", suffix="", language="go")
    # The ordinary prompt refusal carries the same attributes.
    with pytest.raises(espalier.PromptRejectedError) as e:
        Constraint.python(toy, prompt="x = )")
    assert e.value.part == "prompt" and e.value.offset == 4


def test_fim_on_the_model_vocabulary():
    if not MODEL.exists():
        pytest.skip(f"{MODEL} is missing: run scripts/fetch-model.sh")
    v = Vocabulary.from_gguf(str(MODEL))
    ids = {v.token_bytes(i): i for i in range(len(v))}
    prefix, suffix = "def add(a, b):\n    return a +", "\n\n\nprint(add(1, 2))\n"
    c = Constraint.fim(v, prefix=prefix, suffix=suffix)
    allowed = set(c.allowed_tokens())
    assert v.eos_token_id not in allowed  # `a +` needs an operand
    assert ids[b" b"] in allowed and ids[b")"] not in allowed and ids[b"\n"] not in allowed
    logits = np.zeros(len(v), np.float32)
    c.mask_logits(logits)
    assert set(np.flatnonzero(np.isfinite(logits)).tolist()) == allowed
    c.commit(ids[b" b"])
    assert c.is_complete() and v.eos_token_id in c.allowed_tokens()
    ast.parse(prefix + c.text.decode() + suffix)
    c.commit(ids[b" *"])  # `a + b *` goes on: the suffix no longer joins right away
    assert not c.is_complete()
    with pytest.raises(espalier.TokenRejectedError, match="not complete"):
        c.clone().commit(v.eos_token_id)
