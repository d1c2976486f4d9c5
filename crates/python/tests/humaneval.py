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
