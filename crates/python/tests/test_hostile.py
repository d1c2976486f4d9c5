"""The package on hostile use: several threads at once, use after finish, a clone taken
in the middle of a string, a vocabulary (or buffer) of the wrong width, a 1 MB prompt.
Each must be either safe (checked against a single-thread run) or refused with an
`espalier.EspalierError` subclass (PyO3's own refusal of a second concurrent call on
one object is a RuntimeError), never a crash or a panic."""

import threading
import time

import numpy as np
import pytest

import espalier
from humaneval import MODEL


@pytest.fixture(scope="module")
def vocab():
    return espalier.Vocabulary.from_gguf(str(MODEL))


TEXTS = [
    "def add(a, b):\n    return a + b\n",
    "import os\nfor name in os.listdir('.'):\n    print(f'{name!r:>10}')\n",
    "class A:\n    x: int = 3\n    def f(self):\n        return [i * i for i in range(self.x)]\n",
    "s = '''doc\nstring'''\nd = {'k': (1, 2), **{}}\n",
]


def masks_along(vocab, text, language="python"):
    """The allowed-token lists after each token-sized chunk of `text` (8 bytes)."""
    c = getattr(espalier.Constraint, language)(vocab)
    out = []
    data = text.encode()
    for i in range(0, len(data), 8):
        c.commit_bytes(data[i:i + 8])
        out.append(c.allowed_tokens())
    return out


def test_constraints_on_several_threads_at_once_give_the_single_thread_masks(vocab):
    """One constraint per thread, all built from one shared Vocabulary (its trie and
    kits built once, under a lock) and stepped at the same time: masks are computed
    with the GIL released, so the Rust side really runs concurrently."""
    want = [masks_along(vocab, t) for t in TEXTS]
    got = [None] * len(TEXTS)
    errors = []
    rounds = 3

    def work(i):
        try:
            for _ in range(rounds):
                got[i] = masks_along(vocab, TEXTS[i])
                assert got[i] == want[i], f"thread {i}: masks differ"
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(TEXTS))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert got == want


def test_one_constraint_hammered_from_several_threads_is_serialised_or_refused(vocab):
    """One Python constraint used by four threads at once: every call either runs (and
    then gives the single-thread answer) or is refused by PyO3's borrow check with a
    RuntimeError; the state stays consistent."""
    c = espalier.Constraint.python(vocab, prompt="x = [")
    want = c.allowed_tokens()
    ok, refused, other = [0], [0], []

    def hammer():
        for _ in range(30):
            try:
                assert c.allowed_tokens() == want
                ok[0] += 1
            except RuntimeError as e:
                assert "borrow" in str(e).lower(), e
                refused[0] += 1
            except Exception as e:  # noqa: BLE001
                other.append(e)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not other, other
    assert ok[0] + refused[0] == 120 and ok[0] > 0
    c.commit_bytes(b"1]\n")
    assert c.is_complete()


def test_an_slua_constraint_used_from_another_thread_is_refused(vocab):
    c = espalier.Constraint.slua(vocab, kind="effect")
    c.commit_bytes(b"effect Burn")
    seen = []

    def other():
        for call in (lambda: c.allowed_tokens(), lambda: c.commit_bytes(b"ing"), lambda: c.clone(),
                     lambda: c.is_complete(), lambda: c.inspect()):
            try:
                call()
                seen.append("ran")
            except espalier.ThreadError as e:
                seen.append(str(e))
        seen.append(repr(c))  # repr never raises

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert all("thread that built it" in s for s in seen[:5]), seen
    assert "another thread" in seen[5]
    c.commit_bytes(b"ing;")  # the owner goes on, unchanged by the refusals
    assert c.text == b"effect Burning;"


def test_an_slua_constraint_dropped_on_another_thread_does_not_crash(vocab):
    box = [espalier.Constraint.slua(vocab, kind="effect")]
    box[0].clone().commit_bytes(b"effect A")

    def drop():
        box.pop()  # the last reference goes away on this thread: the tree is leaked

    t = threading.Thread(target=drop)
    t.start()
    t.join()
    assert box == []


def test_use_after_finish_is_a_finished_error(vocab):
    c = espalier.Constraint.python(vocab, prompt="x = 1\n")
    c.commit(vocab.eos_token_id)
    assert c.finished
    row = np.zeros(len(vocab), np.float32)
    for call in (lambda: c.commit(0), lambda: c.commit_bytes(b"y"), lambda: c.mask_logits(row),
                 lambda: c.fill_mask(np.zeros(len(vocab), np.bool_)), lambda: c.allowed_tokens(),
                 lambda: c.finishing_distance(10)):
        with pytest.raises(espalier.FinishedError):
            call()
    assert np.all(row == 0), "a refused call writes nothing"
    d = c.clone()
    assert d.finished  # a clone of a finished constraint is finished too
    with pytest.raises(espalier.FinishedError):
        d.commit(0)


@pytest.mark.parametrize("head, a, b", [
    ('x = "abc', 'def"\n', '" + y\n'),
    ('s = f"{a', '}b"\n', ' + 1:>4}"\n'),
    ("t = '''line\n", "more'''\n", "'''\n"),
])
def test_a_clone_taken_mid_string_is_independent(vocab, head, a, b):
    c = espalier.Constraint.python(vocab, prompt=head)
    d = c.clone()
    c.commit_bytes(a.encode())
    d.commit_bytes(b.encode())
    for got, tail in ((c, a), (d, b)):
        fresh = espalier.Constraint.python(vocab, prompt=head + tail)
        assert got.allowed_tokens() == fresh.allowed_tokens()
        assert got.is_complete() and fresh.is_complete()
    assert c.text == a.encode() and d.text == b.encode()


def test_buffers_and_logits_of_the_wrong_width_are_refused(vocab):
    c = espalier.Constraint.python(vocab)
    n = len(vocab)
    for width in (0, 1, n - 1, n + 1, 2 * n):
        row = np.zeros(width, np.float32)
        with pytest.raises(espalier.VocabMismatchError):
            c.mask_logits(row)
        assert np.all(row == 0)
        with pytest.raises(espalier.VocabMismatchError):
            c.fill_mask(np.zeros(width, np.bool_))
    with pytest.raises(espalier.VocabMismatchError):
        c.fill_bitmask(np.zeros((n + 31) // 32 + 1, np.int32))
    # A processor whose logits come from a model of another vocabulary.
    from espalier.llama_cpp import LogitsProcessor

    proc = LogitsProcessor(c, max_tokens=8)
    with pytest.raises(espalier.VocabMismatchError):
        proc(np.array([1, 2], np.intc), np.zeros(n + 64, np.float32))


def test_a_one_megabyte_prompt_is_taken_in_bounded_time(vocab):
    line = "value = compute(alpha, beta) + [1, 2, 3][0]  # a comment\n"
    prompt = line * ((1 << 20) // len(line) + 1)
    t = time.perf_counter()
    c = espalier.Constraint.python(vocab, prompt=prompt)
    allowed = c.allowed_tokens()
    took = time.perf_counter() - t
    assert vocab.eos_token_id in allowed and len(allowed) > 1000
    assert took < 60, took
    with pytest.raises(espalier.PromptRejectedError) as e:
        espalier.Constraint.python(vocab, prompt=prompt + "def )")
    assert e.value.part == "prompt" and e.value.offset == len(prompt) + 4
    # fill-in-the-middle with a 1 MB prefix and suffix.
    c = espalier.Constraint.fim(vocab, prefix=prompt + "y = (", suffix=")\n" + prompt)
    assert c.allowed_tokens()
