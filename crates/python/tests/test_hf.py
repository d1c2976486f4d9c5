"""transformers with espalier.hf.LogitsProcessor (batched, one constraint per row):
SmolLM2-135M loaded by transformers from the project's Q4_1 GGUF (dequantized to
float32 at load), the first 20 HumanEval prompts in batches of 4, greedy, under the
Python constraint: no finished completion may be a syntax error (ast.parse).

Slow and heavy (PyPI's torch with its CUDA packages, see the README): runs only with
ESPALIER_SLOW=1 (scripts/test-python.sh installs torch and transformers then)."""

import ast
import os

import pytest

import espalier
from humaneval import MODEL, STOPS, humaneval_prompts

if os.environ.get("ESPALIER_SLOW") != "1":
    pytest.skip("transformers test: set ESPALIER_SLOW=1", allow_module_level=True)
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def hf():
    tok = transformers.AutoTokenizer.from_pretrained(str(MODEL.parent), gguf_file=MODEL.name)
    model = transformers.AutoModelForCausalLM.from_pretrained(str(MODEL.parent), gguf_file=MODEL.name)
    model.eval()
    torch.set_num_threads(len(os.sched_getaffinity(0)))
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok, model


def test_tokenizer_vocabulary_matches_the_gguf(hf):
    tok, model = hf
    from espalier.hf import vocabulary

    v = vocabulary(tok)
    g = espalier.Vocabulary.from_gguf(str(MODEL))
    assert len(v) == len(g) == model.config.vocab_size
    assert v.eos_token_id == g.eos_token_id
    differ = [i for i in range(len(g)) if v.token_bytes(i) != g.token_bytes(i)]
    assert not differ, differ[:10]


def test_humaneval_20_batched_under_the_python_constraint(hf):
    tok, model = hf
    from espalier.hf import LogitsProcessor, vocabulary

    vocab = vocabulary(tok)
    # ESPALIER_HF_PROMPTS: fewer prompts for a quick run (default: the 20 of the issue).
    prompts = humaneval_prompts(int(os.environ.get("ESPALIER_HF_PROMPTS", "20")))
    finished = errors = 0
    for start in range(0, len(prompts), 4):
        batch = prompts[start:start + 4]
        proc = LogitsProcessor([espalier.Constraint.python(vocab, prompt=p) for p in batch])
        inputs = tok(batch, return_tensors="pt", padding=True)
        with torch.no_grad():
            out = model.generate(
                **inputs, max_new_tokens=128, do_sample=False, eos_token_id=tok.eos_token_id,
                pad_token_id=tok.pad_token_id,
                logits_processor=transformers.LogitsProcessorList([proc]),
            )
        for row, prompt in enumerate(batch):
            new = out[row, inputs["input_ids"].shape[1]:].tolist()
            ended = tok.eos_token_id in new
            if ended:
                new = new[:new.index(tok.eos_token_id)]
            text = tok.decode(new)
            cut = min((text.find(s) for s in STOPS if s in text), default=-1)
            if cut >= 0:
                text = text[:cut]
            elif not ended:
                continue
            finished += 1
            try:
                ast.parse(prompt + text)
            except SyntaxError as e:
                errors += 1
                print(f"syntax error: {e}\n{prompt + text}")
    print(f"finished {finished}/{len(prompts)}, syntax errors {errors}")
    assert errors == 0
    assert finished >= len(prompts) // 4


def test_width_mismatch_is_an_exception():
    from espalier.hf import LogitsProcessor

    small = espalier.Vocabulary.from_token_bytes([b"<eos>", b"x"], eos_token_id=0)
    proc = LogitsProcessor([espalier.Constraint.python(small)])
    with pytest.raises(espalier.VocabMismatchError):
        proc(torch.zeros((1, 3), dtype=torch.long), torch.zeros((1, 5)))
    with pytest.raises(espalier.VocabMismatchError, match="rows"):
        proc(torch.zeros((2, 3), dtype=torch.long), torch.zeros((2, 2)))
