"""Shared by the engine tests and the benchmark: the HumanEval prompts and the usual
stop strings of a function body (the project's `python_stop_strings`)."""

import gzip
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
MODEL = ROOT / "static" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
DATA = Path(os.environ.get("ESPALIER_DATA", ROOT.parent / "shared" / "data"))
STOPS = ["\ndef ", "\nclass ", "\nif __name__", "\nprint(", "\n#", "\nassert ", "\n```"]
# The CLI's stops for a fenced Python answer (`python_top_level_stops`): the first line
# at column 0 after the function ends it.
TOP_LEVEL_STOPS = STOPS + [f"\n{c}" for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_@"
                           if f"\n{c}" not in STOPS]


def humaneval_prompts(n):
    """The first `n` HumanEval prompts."""
    path = DATA / "HumanEval.jsonl.gz"
    with gzip.open(path, "rt") as f:
        return [json.loads(line)["prompt"] for _, line in zip(range(n), f)]


def checked_text(text):
    """What the syntax check parses after the prompt: the generated text up to its last
    top-level line start (a newline followed by a statement at column 0, one of
    `TOP_LEVEL_STOPS`), or all of it when the generation ended with end-of-sequence.

    Why not the usual cut at the first stop string: SmolLM2-135M-Instruct, fed a raw
    HumanEval prompt, mostly ends the function at once and goes on at top level
    ("\n# Test the function\nassert f(3.5) == 0.5\n..."), so the first stop is at
    offset 0 and every completion would be empty: a check that cannot fail. Everything
    the model wrote up to a statement boundary is under the constraint and must parse.
    """
    cut = max((text.rfind(s) for s in TOP_LEVEL_STOPS), default=-1)
    return text[:cut + 1] if cut >= 0 else ""

