"""The extension module on its own: vocabularies, masks against the grammar's own
verdict, clones, inspection, and every error as a Python exception (never a crash)."""

import array
import json
import os
from pathlib import Path

import numpy as np
import pytest

import espalier
from espalier import Constraint, Vocabulary

ROOT = Path(__file__).resolve().parents[3]
MODEL = ROOT / "static" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
API = ROOT / "static" / "api" / "dungeon.json"

TOY = [b"<eos>", b"x", b" =", b" 1", b"\n", b")", b"1\n", b"<pad>", b"def", b" f", b"():", b"    return", b" x"]


@pytest.fixture(scope="module")
def toy():
    return Vocabulary.from_token_bytes(TOY, eos_token_id=0, special_ids=[7])


@pytest.fixture(scope="module")
def smol():
    if not MODEL.exists():
        pytest.skip(f"{MODEL} is missing: run scripts/fetch-model.sh")
    return Vocabulary.from_gguf(str(MODEL))


def allowed(c, n=len(TOY)):
    mask = np.zeros(n, dtype=np.bool_)
    c.fill_mask(mask)
    return set(np.flatnonzero(mask).tolist())


def test_toy_mask_follows_the_grammar(toy):
    c = Constraint.python(toy)
    c.commit(1)  # "x"
    c.commit(2)  # " ="
    got = allowed(c)
    assert 3 in got and 6 in got, got  # " 1", "1\n"
    assert 5 not in got and 0 not in got and 7 not in got  # ")", EOS, special
    assert got == set(c.allowed_tokens())
    c.commit(6)  # "1\n"
    assert c.is_complete()
    assert 0 in allowed(c)  # EOS once complete
    assert c.text == b"x =1\n"


def test_mask_buffers_of_every_kind_agree(toy):
    c = Constraint.python(toy, prompt="x =")
    ref = c.allowed_tokens()
    for buf in (np.zeros(len(TOY), np.bool_), np.zeros(len(TOY), np.uint8), np.zeros(len(TOY), np.int8),
                bytearray(len(TOY)), array.array("B", bytes(len(TOY)))):
        c.fill_mask(buf)
        assert [i for i in range(len(TOY)) if buf[i]] == ref
    logits = np.zeros(len(TOY), np.float32)
    c.mask_logits(logits)
    assert np.flatnonzero(np.isfinite(logits)).tolist() == ref
    # invert=True: 1 where disallowed (what masked_fill_ takes), the exact complement.
    inv = np.zeros(len(TOY), np.bool_)
    c.fill_mask(inv, invert=True)
    assert np.flatnonzero(~inv).tolist() == ref
    # A row of real logits: the allowed ones keep their values, the others are -inf.
    vals = np.arange(len(TOY), dtype=np.float32) - 3.5
    row = vals.copy()
    c.mask_logits(row)
    assert all((row[i] == vals[i]) if i in ref else row[i] == -np.inf for i in range(len(TOY)))
    # A row of a 2-D array is a view: written in place.
    rows = np.zeros((2, len(TOY)), np.float32)
    c.mask_logits(rows[1])
    assert np.flatnonzero(np.isfinite(rows[1])).tolist() == ref and np.isfinite(rows[0]).all()


def test_strided_views_are_written_in_place(toy):
    c = Constraint.python(toy, prompt="x =")
    ref = c.allowed_tokens()
    both = np.zeros((len(TOY), 2), np.bool_)
    c.fill_mask(both[:, 1])
    assert np.flatnonzero(both[:, 1]).tolist() == ref and not both[:, 0].any()
    # llama-cpp-python's view: the logit field of llama_token_data records (12 bytes).
    rec = np.zeros(len(TOY), dtype=np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True))
    rec["id"] = np.arange(len(TOY))
    c.mask_logits(rec["logit"])
    assert np.flatnonzero(np.isfinite(rec["logit"])).tolist() == ref
    assert rec["id"].tolist() == list(range(len(TOY))) and (rec["p"] == 0).all()
    backwards = np.zeros(len(TOY), np.float32)
    c.mask_logits(backwards[::-1])
    assert np.flatnonzero(np.isfinite(backwards[::-1])).tolist() == ref


def test_clone_is_independent(toy):
    a = Constraint.python(toy, prompt="x =")
    b = a.clone()
    a.commit(6)
    assert a.is_complete() and not b.is_complete()
    assert b.text == b"" and a.text == b"1\n"
    b.commit(3)
    assert b.text == b" 1"


def test_inspect_is_a_dict(toy):
    c = Constraint.python(toy, prompt="def f():\n    return (x")
    info = c.inspect()
    assert info["kind"] == "python-lr"
    assert isinstance(info["stack"], list) and info["stack"]
    json.dumps(info)


def test_errors_are_exceptions(toy):
    with pytest.raises(espalier.GrammarError, match="does not compile"):
        Constraint.grammar(toy, "start: NAME\n")  # NAME is not defined
    with pytest.raises(espalier.GrammarError):
        Constraint.grammar(toy, "start: (((\n")
    with pytest.raises(espalier.PromptRejectedError, match="prompt byte 4"):
        Constraint.python(toy, prompt="x = )")
    with pytest.raises(ValueError, match="strategy"):
        Constraint.python(toy, strategy="fast")
    c = Constraint.python(toy, prompt="x =")
    with pytest.raises(espalier.TokenIdError, match="out of the vocabulary"):
        c.commit(len(TOY))
    with pytest.raises(espalier.TokenIdError):
        c.commit(-1)
    with pytest.raises(espalier.TokenRejectedError, match="not allowed"):
        c.commit(5)  # ")"
    with pytest.raises(espalier.TokenRejectedError, match="not complete"):
        c.commit(0)  # EOS too early
    with pytest.raises(espalier.TokenRejectedError, match="special"):
        c.commit(7)
    assert c.text == b""  # refusals change nothing
    with pytest.raises(espalier.VocabMismatchError, match="13 tokens"):
        c.fill_mask(np.zeros(len(TOY) + 1, np.bool_))
    with pytest.raises(espalier.BufferError, match="writable"):
        c.fill_mask(bytes(len(TOY)))  # read-only
    with pytest.raises(espalier.BufferError, match="bool, uint8 or int8"):
        c.fill_mask(np.zeros(len(TOY), np.int32))
    with pytest.raises(espalier.BufferError, match="float32"):
        c.mask_logits(np.zeros(len(TOY), np.float64))
    with pytest.raises(espalier.BufferError, match="strided"):
        c.fill_mask(np.zeros((len(TOY), 4), np.bool_)[:, ::2])  # 2-D strided
    with pytest.raises(espalier.BufferError):
        c.fill_mask([0] * len(TOY))  # no buffer at all
    c.commit(6)
    c.commit(0)  # EOS: finished
    assert c.finished
    for use in (lambda: c.commit(1), lambda: c.fill_mask(np.zeros(len(TOY), np.bool_)), c.allowed_tokens):
        with pytest.raises(espalier.FinishedError):
            use()
    assert issubclass(espalier.FinishedError, espalier.EspalierError)
    with pytest.raises(espalier.VocabularyError):
        Vocabulary.from_token_bytes(TOY, eos_token_id=len(TOY))
    with pytest.raises(espalier.VocabularyError):
        Vocabulary.from_gguf("/nonexistent.gguf")
    with pytest.raises(espalier.VocabularyError):
        Vocabulary.from_tokenizer_str("{not json")


def test_user_grammar(toy):
    g = 'start: NAME "=" INT NL\nNAME: /[a-z]+/\nINT: /[0-9]+/\nNL: /\\n/\n%ignore " "\n'
    c = Constraint.grammar(toy, g)
    c.commit(1)
    assert set(c.allowed_tokens()) == {1, 2, 8}  # the NAME goes on ("x", "def") or " ="
    c.commit(2)
    assert set(c.allowed_tokens()) == {3, 6}
    c.commit(6)
    assert c.is_complete() and c.allowed_tokens() == [0]
    with pytest.raises(ValueError, match="table"):
        Constraint.grammar(toy, g, table="slr")


def test_grammar_tables_give_the_same_masks(smol):
    """Canonical LR(1) (the default: exact acceptable sets) and Pager's merged table
    (acceptable sets by simulated reductions) on the benchmark's grammar, step by step."""
    g = espalier.python_lines_grammar()
    prompt = "def f(a, b):\n    x = [a, b]\n"
    lr1 = Constraint.grammar(smol, g, prompt=prompt)
    pager = Constraint.grammar(smol, g, prompt=prompt, table="pager")
    for piece in (b"    if", b" x", b"[0", b"]", b" >", b" (", b"b", b"):", b"\n", b"        return"):
        assert lr1.allowed_tokens() == pager.allowed_tokens(), (lr1.text, piece)
        lr1.commit_bytes(piece)
        pager.commit_bytes(piece)


def test_tokenizer_json_byte_level(tmp_path):
    # A tiny GPT-2 style tokenizer: "Ġ" is the byte-level alphabet's space, "Ċ" newline.
    vocab = {"x": 0, "Ġ=": 1, "Ġ1": 2, "Ċ": 3, "=": 4, "1": 5, "Ġ": 6}
    tj = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": 7, "content": "<|endoftext|>", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                  "merges": ["Ġ ="]},
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(tj))
    v = Vocabulary.from_tokenizer_json(str(path))
    assert len(v) == 8 and v.eos_token_id == 7 and v.is_special(7)
    assert [v.token_bytes(i) for i in range(4)] == [b"x", b" =", b" 1", b"\n"]
    c = Constraint.python(v, prompt="x")
    assert 1 in c.allowed_tokens() and 7 in c.allowed_tokens()  # "x" is a whole program
    c.commit(1)
    # "x =" goes on with "x", " 1", "=" (==), "1", " "; not "\n" nor EOS (7): unfinished
    assert c.allowed_tokens() == [0, 2, 4, 5, 6]
    with pytest.raises(espalier.VocabularyError, match="end-of-sequence"):
        tj["added_tokens"] = []
        Vocabulary.from_tokenizer_str(json.dumps(tj))


def test_gguf_vocabulary_and_syncode_superset(smol):
    assert len(smol) == 49152 and smol.token_bytes(1604) == b"def"
    prompt = "def add(a, b):\n    return a"
    exact = Constraint.python(smol, prompt=prompt)
    syn = Constraint.python(smol, strategy="syncode", prompt=prompt)
    for tok in (" +", " b", "\n"):
        e, s = set(exact.allowed_tokens()), set(syn.allowed_tokens())
        assert e and e <= s, (tok, len(e), len(s))
        ids = [i for i in e if smol.token_bytes(i) == tok.encode()]
        assert ids, tok
        exact.commit(ids[0])
        syn.commit(ids[0])


def test_packed_bitmask_is_llguidance_format(toy, smol):
    """fill_bitmask: token i is bit i % 32 of int32 word i // 32 (llguidance's and
    XGrammar's layout), equal to fill_mask, bits past the vocabulary 0."""
    for vocab, prompts in ((toy, ["x =", ""]), (smol, ["def add(a, b):\n", "x = 'ab", "x = [1,"])):
        n = len(vocab)
        for prompt in prompts:
            c = Constraint.python(vocab, prompt=prompt)
            mask = np.zeros(n, np.bool_)
            c.fill_mask(mask)
            for dtype in (np.int32, np.uint32):
                bits = np.full((n + 31) // 32, -1 if dtype == np.int32 else 0xFFFFFFFF, dtype)
                c.fill_bitmask(bits)
                unpacked = np.unpackbits(bits.view(np.uint8), bitorder="little")
                assert np.array_equal(unpacked[:n].astype(bool), mask), prompt
                assert not unpacked[n:].any()
    c = Constraint.python(toy)
    with pytest.raises(espalier.VocabMismatchError, match="1 words of 32 tokens"):
        c.fill_bitmask(np.zeros(2, np.int32))
    with pytest.raises(espalier.BufferError, match="int32"):
        c.fill_bitmask(np.zeros(1, np.int64))


def test_mask_logits_equals_the_mask_on_the_model_vocabulary(smol):
    """mask_logits (whole 64-token words kept, cleared, or mixed) against fill_mask, on
    states whose masks are mostly open, mostly closed and in between."""
    rng = np.random.default_rng(0)
    vals = rng.standard_normal(len(smol)).astype(np.float32)
    mask = np.zeros(len(smol), np.bool_)
    for prompt in ("def add(a, b):\n", "def add(a, b):\n    return a", "x = 'ab", "x = [1,"):
        c = Constraint.python(smol, prompt=prompt)
        c.fill_mask(mask)
        row = vals.copy()
        c.mask_logits(row)
        assert np.array_equal(row, np.where(mask, vals, np.float32(-np.inf))), prompt
        assert 0 < mask.sum() < len(smol)


def test_go_through_the_registry(smol):
    """Go 1.19 from the registry: semicolons come from newlines, EOS only once the file
    is complete, a bad prompt is refused, SynCode's mask holds the exact one."""
    prompt = "package main\n\nfunc Add(a, b int) int {\n\treturn a + b"
    c = Constraint.go(smol, prompt=prompt)
    syn = Constraint.go(smol, strategy="syncode", prompt=prompt)
    assert c.language == "go"
    def ids(tok):
        return [i for i in range(len(smol)) if smol.token_bytes(i) == tok]
    for tok in (b"\n", b"}"):
        e, s = set(c.allowed_tokens()), set(syn.allowed_tokens())
        assert e and e <= s, (tok, len(e), len(s))
        assert smol.eos_token_id not in e
        assert ids(tok)[0] in e, tok
        c.commit(ids(tok)[0])
        syn.commit(ids(tok)[0])
    assert c.is_complete() and smol.eos_token_id in c.allowed_tokens()
    assert ids(b")")[0] not in c.allowed_tokens()  # no ")" after the function's "}"
    c.commit(smol.eos_token_id)
    assert c.text == b"\n}"  # the bytes committed after the prompt
    with pytest.raises(espalier.PromptRejectedError):
        Constraint.go(smol, prompt="package main\n\nfunc )")  # no name, no receiver
    with pytest.raises(espalier.PromptRejectedError):
        Constraint.go(smol, prompt="def f():")  # Python is not Go


def test_slua_with_the_api_file(smol):
    c = Constraint.slua(smol, api=str(API), kind="effect")
    first = c.allowed_tokens()
    assert first and smol.eos_token_id not in first
    info = c.inspect()
    assert info["kind"] == "slua-top" and info["tree"] is not None
    ids = [i for i in first if smol.token_bytes(i) == b"effect"]
    assert ids
    c.commit(ids[0])
    assert c.text == b"effect"
    bad = Path(os.environ.get("TMPDIR", "/tmp")) / "espalier-bad-api.json"
    bad.write_text("{\"functions\": 3}")
    with pytest.raises(espalier.GrammarError, match="not valid"):
        Constraint.slua(smol, api=str(bad))
    with pytest.raises(espalier.PromptRejectedError):
        Constraint.slua(smol, prompt="effect 12")
