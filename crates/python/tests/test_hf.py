"""transformers with espalier.hf.LogitsProcessor (batched, one constraint per row).

Always (no engine needed): the processor's argument errors, and `vocabulary` refusing
a tokenizer that is not a fast one.

Always, with the engines (scripts/test-python.sh installs torch, transformers and gguf,
pinned; a missing engine fails, nothing is skipped):
- the tokenizer transformers reads from the project's GGUF gives the same vocabulary,
  byte for byte, as `Vocabulary.from_gguf`;
- a small Llama with random weights, built from a config (no download) with the GGUF
  tokenizer's vocabulary, generates under the Python constraint through `generate`:
  with the wrap-up (on by default) every row ends with end-of-sequence within
  `max_new_tokens` and CPython's ast.parse accepts prompt + generated text;
- the engine-free checks (a width mismatch is an exception; other dtypes get the same
  mask; the wrap-up of test_wrap_up.py through this processor).

With ESPALIER_SLOW=1 only (the slow gate; scripts/test-python.sh then also installs
accelerate): SmolLM2-135M loaded by transformers from the Q4_1 GGUF
(dequantized to float32 at load; needs accelerate), the first 20 HumanEval prompts in
batches of 4, greedy, under the Python constraint: no finished generation may be a
syntax error (ast.parse on the prompt and the generated text up to its last statement
boundary, see `humaneval.checked_text`), and most checked texts must hold code."""

import ast
import json
import os
import time

import numpy as np
import pytest
import espalier
from humaneval import MODEL, TOP_LEVEL_STOPS, checked_text, humaneval_prompts
from slow_gate import slow
from test_wrap_up import PROMPT, text_of, toy_logits, toy_vocab

# torch (~5.6 GB with its CUDA packages, ~2 minutes to install cold) and transformers are
# always installed by scripts/test-python.sh: a missing engine is an import error here.
import torch
import transformers

# The real model through transformers (dequantized from the GGUF at load, then 20 prompts
# in batches on the CPU) is the one slow case.
slow_only = pytest.mark.skipif(
    not slow(), reason="SmolLM2 through transformers is slow on 2 cores: ESPALIER_SLOW=1 runs it"
)


# transformers dequantizes the Q4_1 GGUF at every load (slow on 2 cores) and refuses
# save_pretrained for a GGUF-loaded model: the first run saves the dequantized weights
# (a state dict), the config and the tokenizer here (git-ignored); later runs load them.
CONVERTED = MODEL.parents[2] / "target" / "hf-SmolLM2-135M-Instruct-from-Q4_1"


def load_model():
    weights = CONVERTED / "model.pt"
    if weights.exists():
        tok = transformers.AutoTokenizer.from_pretrained(str(CONVERTED))
        config = transformers.AutoConfig.from_pretrained(str(CONVERTED))
        model = transformers.AutoModelForCausalLM.from_config(config)
        model.load_state_dict(torch.load(str(weights)))
        return tok, model
    tok = transformers.AutoTokenizer.from_pretrained(str(MODEL.parent), gguf_file=MODEL.name)
    model = transformers.AutoModelForCausalLM.from_pretrained(str(MODEL.parent), gguf_file=MODEL.name)
    CONVERTED.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(str(CONVERTED))
    config = model.config.to_dict()
    config.pop("quantization_config", None)
    (CONVERTED / "config.json").write_text(json.dumps(config))
    torch.save(model.state_dict(), str(weights) + ".tmp")
    os.replace(str(weights) + ".tmp", str(weights))
    return tok, model


@pytest.fixture(scope="module")
def gguf_tokenizer():
    """The tokenizer transformers builds from the GGUF's metadata (needs `gguf`)."""
    tok = transformers.AutoTokenizer.from_pretrained(str(MODEL.parent), gguf_file=MODEL.name)
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


@pytest.fixture(scope="module")
def hf():
    tok, model = load_model()
    model.eval()
    torch.set_num_threads(len(os.sched_getaffinity(0)))
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok, model


def test_tokenizer_vocabulary_matches_the_gguf(gguf_tokenizer):
    from espalier.hf import vocabulary

    v = vocabulary(gguf_tokenizer)
    g = espalier.Vocabulary.from_gguf(str(MODEL))
    assert len(v) == len(g) == 49152
    assert v.eos_token_id == g.eos_token_id
    differ = [i for i in range(len(g)) if v.token_bytes(i) != g.token_bytes(i)]
    assert not differ, differ[:10]


def random_llama(vocab_size):
    """A 2-layer Llama with random weights (seeded) and SmolLM2's vocabulary width."""
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        tie_word_embeddings=True,
    )
    return transformers.LlamaForCausalLM(config).eval()


def test_random_llama_generates_complete_programs_within_the_budget(gguf_tokenizer):
    """Random weights write noise; the constraint keeps it Python and the default
    wrap-up closes every row's program before `max_new_tokens`. The same rows with
    the wrap-up off do not all end (so the wrap-up is what finished them)."""
    from espalier.hf import LogitsProcessor, vocabulary

    tok = gguf_tokenizer
    vocab = vocabulary(tok)
    model = random_llama(len(vocab))
    prompts = ["def add(a, b):\n    return", "x = [1, (2", "for i in range(3):\n", "class A:\n    def f(self):\n        y = {"]
    budget = 48
    inputs = tok(prompts, return_tensors="pt", padding=True)
    ends = {}
    for window in (espalier.wrap_up.WINDOW, None):
        proc = LogitsProcessor([espalier.Constraint.python(vocab, prompt=p) for p in prompts],
                               max_new_tokens=budget, wrap_up=window)
        with torch.no_grad():
            out = model.generate(**inputs, max_new_tokens=budget, do_sample=False,
                                 eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                                 logits_processor=transformers.LogitsProcessorList([proc]))
        ends[window] = []
        for row, prompt in enumerate(prompts):
            new = out[row, inputs["input_ids"].shape[1]:].tolist()
            ended = tok.eos_token_id in new
            ends[window].append(ended)
            if window is not None:
                assert ended, f"row {row} did not end within {budget} tokens: {tok.decode(new)!r}"
                assert proc.wrap_ups[row].started_at is not None
                text = tok.decode(new[:new.index(tok.eos_token_id)])
                ast.parse(prompt + text)  # a SyntaxError fails the test
    assert not all(ends[None]), "every row ended without the wrap-up: the test cannot tell it works"


def test_the_wrap_up_through_the_transformers_processor():
    """test_wrap_up.py's toy model through espalier.hf: the same tokens as the
    llama-cpp-python processor, for a batch of two rows."""
    from espalier.hf import LogitsProcessor

    budget = 24
    proc = LogitsProcessor([espalier.Constraint.python(toy_vocab(), prompt=PROMPT) for _ in range(2)],
                           max_new_tokens=budget)
    ids = torch.tensor([[1, 2, 5], [1, 2, 5]])
    outs = [[], []]
    for _ in range(budget):
        scores = torch.from_numpy(np.stack([toy_logits(), toy_logits()]))
        proc(ids, scores)
        nxt = scores.argmax(dim=-1)
        for row in range(2):
            if not (outs[row] and outs[row][-1] == 0):
                outs[row].append(int(nxt[row]))
        if all(o[-1] == 0 for o in outs):
            break
        ids = torch.cat([ids, nxt[:, None]], dim=1)
    for o in outs:
        assert o[-1] == 0, text_of(o)
        ast.parse(PROMPT + text_of(o))
    assert outs[0] == outs[1]
    with pytest.raises(espalier.EspalierError, match="max_new_tokens"):
        LogitsProcessor([espalier.Constraint.python(toy_vocab())])


@slow_only
def test_humaneval_20_batched_under_the_python_constraint(hf):
    tok, model = hf
    from espalier.hf import LogitsProcessor, vocabulary

    vocab = vocabulary(tok)
    # ESPALIER_HF_PROMPTS: fewer prompts for a quick run (default: the 20 of the issue).
    prompts = humaneval_prompts(int(os.environ.get("ESPALIER_HF_PROMPTS", "20")))
    finished = errors = checked = 0
    records = []
    t_start = time.perf_counter()
    for start in range(0, len(prompts), 4):
        batch = prompts[start:start + 4]
        proc = LogitsProcessor([espalier.Constraint.python(vocab, prompt=p) for p in batch], max_new_tokens=128)
        inputs = tok(batch, return_tensors="pt", padding=True)
        t0 = time.perf_counter()
        with torch.no_grad():
            out = model.generate(
                **inputs, max_new_tokens=128, do_sample=False, eos_token_id=tok.eos_token_id,
                pad_token_id=tok.pad_token_id,
                logits_processor=transformers.LogitsProcessorList([proc]),
            )
        gen_s = time.perf_counter() - t0
        for row, prompt in enumerate(batch):
            new = out[row, inputs["input_ids"].shape[1]:].tolist()
            ended = tok.eos_token_id in new
            if ended:
                new = new[:new.index(tok.eos_token_id)]
            text = tok.decode(new)
            first = min((text.find(s) for s in TOP_LEVEL_STOPS if s in text), default=-1)
            body = text if ended else checked_text(text)
            record = {"prompt": start + row, "eos": ended, "new_tokens": len(new),
                      "completion": text[:first] if first >= 0 else text, "checked_chars": len(body),
                      "syntax_ok": None, "generated": text}
            records.append(record)
            if not (ended or first >= 0):
                continue
            finished += 1
            checked += bool(body.strip())
            try:
                ast.parse(prompt + body)
                record["syntax_ok"] = True
            except SyntaxError as e:
                errors += 1
                record["syntax_ok"] = False
                print(f"syntax error: {e}\n{prompt + body}")
        print(f"batch {start // 4}: generate {gen_s:.1f} s, processor {proc.calls} calls, "
              f"{proc.seconds * 1e3 / max(proc.calls, 1):.2f} ms per call (all rows)")
    summary = {"prompts": len(prompts), "finished": finished, "checked_non_empty": checked,
               "syntax_errors_finished": errors,
               "check": "prompt + generated text up to its last top-level line start (all of it after EOS)",
               "max_new_tokens": 128, "batch": 4, "seconds": round(time.perf_counter() - t_start, 1),
               "torch": torch.__version__, "transformers": transformers.__version__,
               "loadavg": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(summary))
    out_dir = os.environ.get("ESPALIER_PY_RESULTS")
    if out_dir:
        with open(os.path.join(out_dir, "hf-humaneval.jsonl"), "w") as f:
            for r in [summary] + records:
                f.write(json.dumps(r) + "\n")
    assert errors == 0
    assert finished >= len(prompts) // 4
    # The check means something only on real code: most checked texts are not empty.
    assert checked >= finished // 2, (checked, finished)


def test_width_mismatch_is_an_exception():
    from espalier.hf import LogitsProcessor

    small = espalier.Vocabulary.from_token_bytes([b"<eos>", b"x"], eos_token_id=0)
    proc = LogitsProcessor([espalier.Constraint.python(small)], wrap_up=None)
    with pytest.raises(espalier.VocabMismatchError):
        proc(torch.zeros((1, 3), dtype=torch.long), torch.zeros((1, 5)))
    with pytest.raises(espalier.VocabMismatchError, match="rows"):
        proc(torch.zeros((2, 3), dtype=torch.long), torch.zeros((2, 2)))


def test_other_dtypes_get_the_same_mask():
    """float32 rows are masked in place by Rust; bfloat16 / float64 rows through the
    preallocated "disallowed" mask and masked_fill_: the same tokens survive."""
    from espalier.hf import LogitsProcessor

    toy = espalier.Vocabulary.from_token_bytes([b"<eos>", b"x", b" =", b" 1", b"\n", b")"], eos_token_id=0)
    ids = torch.tensor([[1, 2], [1, 2]])  # the prompt's ids (not committed)
    kept = {}
    for dtype in (torch.float32, torch.bfloat16, torch.float64):
        proc = LogitsProcessor([espalier.Constraint.python(toy, prompt="x ="), espalier.Constraint.python(toy)],
                               wrap_up=None)
        scores = torch.arange(12, dtype=dtype).reshape(2, 6)
        out = proc(ids, scores)
        assert out.dtype == dtype
        kept[dtype] = torch.isfinite(out).tolist()
        fin = torch.isfinite(out)
        assert torch.equal(out[fin], torch.arange(12, dtype=dtype).reshape(2, 6)[fin])
    assert kept[torch.float32] == kept[torch.bfloat16] == kept[torch.float64]
    assert kept[torch.float32][0] == [False, True, False, True, False, False]  # "x", " 1" after "x ="


def test_processor_argument_errors():
    """No engine needed: the errors come before any tensor is touched."""
    from espalier.hf import LogitsProcessor

    toy = espalier.Vocabulary.from_token_bytes([b"<eos>", b"x"], eos_token_id=0)
    with pytest.raises(espalier.EspalierError, match="max_new_tokens"):
        LogitsProcessor([espalier.Constraint.python(toy)])
    with pytest.raises(espalier.EspalierError, match="at least one constraint"):
        LogitsProcessor([], wrap_up=None)


def test_vocabulary_refuses_a_slow_tokenizer():
    from espalier.hf import vocabulary

    class SlowTokenizer:
        eos_token_id = 0

    with pytest.raises(espalier.EspalierError, match="not a fast tokenizer"):
        vocabulary(SlowTokenizer())
