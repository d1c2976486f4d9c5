"""The `names` mode (`Constraint.python(vocab, names=True)`): the exact Python mask
intersected with the names layer, so a name the text reads is bound by Python's scoping
rules. On a toy vocabulary: the mask against a brute force over `commit` (each token
tried on a clone), the names in scope in `inspect()`, the errors; and through the
llama-cpp-python processor driven with NumPy rows as llama.cpp passes them (as in
test_wrap_up.py), a toy "model" that prefers an undefined name writes a program that
raises NameError under the plain mask and one that runs under `names=True`."""

import numpy as np
import pytest

import espalier
from espalier import Constraint, Vocabulary
from espalier.llama_cpp import LogitsProcessor
from toy_model import greedy_ids, ranked_logits

TOKENS = [
    b"<eos>", b"a", b"zz", b"z", b"\n", b" +", b" 1", b"len", b"(", b")", b"def", b" g", b"b",
    b"):", b"    ", b"x", b" =", b" a", b"return", b" ", b"import", b" os", b"os", b".", b"path",
    b"c", b" c", b" b", b"ab",
]
PROMPT = "def f(a):\n    return "


@pytest.fixture(scope="module")
def toy():
    return Vocabulary.from_token_bytes(TOKENS, eos_token_id=0)


def allowed(c):
    mask = np.zeros(len(TOKENS), dtype=np.bool_)
    c.fill_mask(mask)
    return set(np.flatnonzero(mask).tolist())


def brute_force(c):
    """The tokens a clone of `c` commits without an error (EOS: when complete)."""
    out = set()
    for tok in range(len(TOKENS)):
        try:
            c.clone().commit(tok)
        except espalier.TokenRejectedError:
            continue
        out.add(tok)
    return out


def test_a_parameter_is_allowed_an_undefined_name_is_not(toy):
    c = Constraint.python(toy, prompt=PROMPT, names=True)
    got = allowed(c)
    assert TOKENS.index(b"a") in got and TOKENS.index(b"len") in got
    # `z` may still become `zip`; `zz` starts no name in scope.
    assert TOKENS.index(b"z") in got
    assert TOKENS.index(b"zz") not in got
    # The plain mask has no such rule: the difference is the names layer's.
    assert TOKENS.index(b"zz") in allowed(Constraint.python(toy, prompt=PROMPT))
    with pytest.raises(espalier.TokenRejectedError, match="name"):
        c.commit(TOKENS.index(b"zz"))
    c.commit(TOKENS.index(b"a"))  # the refused commit left the constraint as it was
    assert c.text == b"a" and c.is_complete()


@pytest.mark.parametrize("prompt", [
    PROMPT,
    "def f(a):\n    return a +",
    "def f(a):\n    b = a\n    return ",
    "import os\nx = ",
    "x = 1\n",
    "x = 1\ndef g(b):\n    c = b\n    return (",
    "",
])
def test_the_mask_equals_brute_force(toy, prompt):
    c = Constraint.python(toy, prompt=prompt, names=True)
    assert allowed(c) == brute_force(c)
    assert set(c.allowed_tokens()) == allowed(c)


def test_inspect_lists_the_names_in_scope(toy):
    c = Constraint.python(toy, prompt="import os\ndef f(a):\n    b = a\n    return ", names=True)
    info = c.inspect()
    assert info["kind"] == "python-names"
    scope = info["names_in_scope"]
    assert {"a", "b", "f", "os"} <= set(scope), scope
    assert "len" not in scope, "builtins are not listed"
    assert Constraint.python(toy, prompt="x = 1\n").inspect()["names_in_scope"] is None


def test_the_prompt_is_checked_too(toy):
    with pytest.raises(espalier.PromptRejectedError) as err:
        Constraint.python(toy, prompt="def f(a):\n    return zz", names=True)
    assert err.value.part == "prompt"
    Constraint.python(toy, prompt="def f(a):\n    return zz")  # no names layer: accepted


def test_names_is_python_and_exact_only(toy):
    with pytest.raises(espalier.GrammarError, match="names"):
        Constraint.go(toy, names=True)
    with pytest.raises(ValueError, match="exact"):
        Constraint.python(toy, strategy="syncode", names=True)


# The toy model's preference, best first: an undefined name above all.
PREFERENCE = [b"zz", b"a", b"<eos>", b"\n"]


def greedy(proc, budget):
    # [1, 2, 3]: the prompt's ids, which the processor does not commit.
    out = greedy_ids(proc, ranked_logits(TOKENS, PREFERENCE), [1, 2, 3], budget)
    return PROMPT + b"".join(TOKENS[i] for i in out if i != 0).decode()


def run_f(source):
    scope = {}
    exec(compile(source, "<generated>", "exec"), scope)
    return scope["f"](1)


def test_through_the_llama_cpp_processor(toy):
    plain = greedy(LogitsProcessor(Constraint.python(toy, prompt=PROMPT), wrap_up=None), 6)
    assert plain.endswith("zz" * 6)
    with pytest.raises(NameError):
        run_f(plain)
    named = greedy(LogitsProcessor(Constraint.python(toy, prompt=PROMPT, names=True), wrap_up=None), 6)
    assert named == PROMPT + "a"
    assert run_f(named) == 1
