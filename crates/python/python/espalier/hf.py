"""A logits processor for Hugging Face ``transformers.generate`` (batched: one
constraint per row).

Usage (see the README of crates/python for the whole example)::

    from espalier.hf import LogitsProcessor, vocabulary
    vocab = vocabulary(tokenizer)                      # from the fast tokenizer
    proc = LogitsProcessor([espalier.Constraint.python(vocab, prompt=p) for p in prompts],
                           max_new_tokens=128)
    model.generate(**inputs, max_new_tokens=128, logits_processor=LogitsProcessorList([proc]))

The wrap-up is on by default (:mod:`espalier.wrap_up`): give the processor the
``max_new_tokens`` you give ``generate``, and within the last ``wrap_up`` tokens (32
by default, earlier if the constraint's finishing distance says so) each row's mask is
narrowed to its constraint's finishing mask, so the program closes within the budget.
``wrap_up=None`` turns it off (then ``max_new_tokens`` may be left out).

Each call commits the token every row received since the previous call
(``input_ids[:, -1]``), then masks that row's logits: in place through the tensor's
memory for float32 CPU tensors (no allocation per step), through a preallocated bool
mask of the disallowed tokens otherwise (other dtypes, GPU tensors: one copy to the
device and one ``masked_fill_``). Rows whose constraint committed the
end-of-sequence token are left alone (``generate`` pads them). Beam search reorders
rows between steps, which this processor does not follow: use greedy or sampling.
``proc.calls`` / ``proc.seconds`` count the calls and their wall-clock time (commits,
masks and applying them, all rows); ``proc.wrap_ups[i].started_at`` is the generated
token count at which row ``i`` began its wrap-up (``None``: it did not).
"""

from __future__ import annotations

import time
from typing import List, Optional, Sequence

import numpy as np

from ._espalier import Constraint, EspalierError, VocabMismatchError, Vocabulary
from .wrap_up import WINDOW, WrapUp, budget_argument


def vocabulary(tokenizer, eos_token_id: Optional[int] = None) -> Vocabulary:
    """The vocabulary of a ``transformers`` fast tokenizer (its ``tokenizer.json``)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise EspalierError(
            f"{type(tokenizer).__name__} is not a fast tokenizer (no backend_tokenizer): "
            "load it with use_fast=True or build the vocabulary with Vocabulary.from_token_bytes"
        )
    if eos_token_id is None:
        eos_token_id = tokenizer.eos_token_id
    return Vocabulary.from_tokenizer_str(backend.to_str(), eos_token_id)


class LogitsProcessor:
    """Constrains each row of a ``generate`` batch with its own ``espalier.Constraint``."""

    def __init__(
        self,
        constraints: Sequence[Constraint],
        max_new_tokens: Optional[int] = None,
        wrap_up: Optional[int] = WINDOW,
    ):
        if isinstance(constraints, Constraint):
            constraints = [constraints]
        self.constraints: List[Constraint] = list(constraints)
        if not self.constraints:
            raise EspalierError("LogitsProcessor needs at least one constraint")
        budget = budget_argument("max_new_tokens", max_new_tokens, wrap_up)
        self.wrap_ups = [WrapUp(budget, wrap_up) for _ in self.constraints]
        self._prompt_len = None
        self._seen = None
        self._mask = None  # preallocated "disallowed" masks for the non-float32 / GPU path
        self._mask_t = None
        self.calls = 0  # processor calls so far, and their total wall-clock seconds
        self.seconds = 0.0

    def __call__(self, input_ids, scores):
        t0 = time.perf_counter()
        try:
            return self._step(input_ids, scores)
        finally:
            self.calls += 1
            self.seconds += time.perf_counter() - t0

    def _step(self, input_ids, scores):
        import torch

        batch, seq = input_ids.shape
        if batch != len(self.constraints):
            raise VocabMismatchError(
                f"the batch has {batch} rows but the processor holds {len(self.constraints)} constraints"
            )
        if self._seen is None:
            self._seen = seq
            self._prompt_len = seq
        elif seq != self._seen + 1:
            raise EspalierError(
                f"generate passed {seq} ids after {self._seen}: one token per step is expected "
                "(a new generation needs a new processor)"
            )
        else:
            last = input_ids[:, -1].tolist()
            for c, tok in zip(self.constraints, last):
                if not c.finished:
                    c.commit(tok)
            self._seen = seq
        width = scores.shape[-1]
        generated = seq - self._prompt_len
        wrapping = [not c.finished and w.in_force(c, generated) for c, w in zip(self.constraints, self.wrap_ups)]
        if scores.device.type == "cpu" and scores.dtype == torch.float32 and scores.is_contiguous():
            rows = scores.numpy()
            for i, c in enumerate(self.constraints):
                if not c.finished:
                    c.mask_logits(rows[i], wrap_up=wrapping[i])
            return scores
        # Other dtypes (bfloat16, float16) or devices: a preallocated "disallowed" bool
        # mask written by Rust (invert=True), moved once and applied by masked_fill_.
        if self._mask is None or self._mask.shape != (batch, width):
            self._mask = np.zeros((batch, width), dtype=np.bool_)
            self._mask_t = torch.from_numpy(self._mask)
        for i, c in enumerate(self.constraints):
            if c.finished:
                self._mask[i].fill(False)
            else:
                c.fill_mask(self._mask[i], invert=True, wrap_up=wrapping[i])
        return scores.masked_fill_(self._mask_t.to(scores.device, non_blocking=True), float("-inf"))
