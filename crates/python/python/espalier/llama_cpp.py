"""A logits processor for llama-cpp-python.

Usage::

    import llama_cpp, espalier
    from espalier.llama_cpp import LogitsProcessor
    llm = llama_cpp.Llama(model_path="model.gguf")
    vocab = espalier.Vocabulary.from_gguf("model.gguf")
    proc = LogitsProcessor(espalier.Constraint.python(vocab, prompt=prompt), max_tokens=128)
    out = llm.create_completion(prompt, max_tokens=128,
                                logits_processor=llama_cpp.LogitsProcessorList([proc]))

The wrap-up is on by default (:mod:`espalier.wrap_up`): give the processor the
``max_tokens`` you give ``create_completion``, and within the last ``wrap_up`` tokens
(32 by default, earlier if the constraint's finishing distance says so) the mask is
narrowed to the constraint's finishing mask, so the program closes within the budget.
``wrap_up=None`` turns it off (then ``max_tokens`` may be left out).

One processor serves one generation: it commits the tokens llama.cpp appended since
its last call (llama.cpp passes all ids, prompt first; the first call's ids are the
prompt), then sets the logits of every token the constraint refuses to -inf in place
(no allocation per step; llama-cpp-python passes a strided float32 view, written in
place). ``proc.constraint`` is the state after the last call; ``proc.wrap_up.started_at``
the generated token count at which the wrap-up began (``None``: it did not).

llama-cpp-python calls processors from a C callback that prints and swallows Python
exceptions, and would then sample without the mask. So the processor keeps the first
error in ``proc.error`` and from then on allows only the end-of-sequence token, ending
the generation; check ``proc.error`` after it (``raise_error()`` re-raises it).
"""

from __future__ import annotations

from typing import Optional

from ._espalier import Constraint, EspalierError
from .wrap_up import WINDOW, WrapUp, budget_argument


class LogitsProcessor:
    """Constrains one llama-cpp-python generation with an ``espalier.Constraint``."""

    def __init__(self, constraint: Constraint, max_tokens: Optional[int] = None, wrap_up: Optional[int] = WINDOW):
        self._budget = budget_argument("max_tokens", max_tokens, wrap_up)
        self._window = wrap_up
        self.reset(constraint)

    def reset(self, constraint: Constraint) -> None:
        """Starts over with a fresh constraint (for the next generation, same budget)."""
        self.constraint = constraint
        self.tokens = []  # the ids committed so far (after the prompt)
        self.error = None  # the first exception, if any (see the module's doc)
        self._seen = None  # number of ids committed (or taken as prompt) so far
        self.wrap_up = WrapUp(self._budget, self._window)

    def raise_error(self) -> None:
        """Re-raises the error the processor met, if any."""
        if self.error is not None:
            raise self.error

    def __call__(self, input_ids, scores):
        if self.error is None:
            try:
                return self._step(input_ids, scores)
            except Exception as e:  # noqa: BLE001 - kept for the caller, see above
                self.error = e
                if len(scores) != self.constraint.vocab_size:
                    raise  # nothing sensible to mask: a direct caller sees the error
        eos = self.constraint.eos_token_id
        keep = scores[eos]
        scores[:] = float("-inf")
        scores[eos] = keep
        return scores

    def _step(self, input_ids, scores):
        n = len(input_ids)
        if self._seen is None:
            self._seen = n
        elif n < self._seen:
            raise EspalierError(
                f"llama.cpp passed {n} ids after {self._seen}: the processor was reused for another "
                "generation; call reset() with a fresh constraint"
            )
        for i in range(self._seen, n):
            tok = int(input_ids[i])
            self.constraint.commit(tok)
            self.tokens.append(tok)
        self._seen = n
        wrapping = self.wrap_up.in_force(self.constraint, len(self.tokens))
        self.constraint.mask_logits(scores, wrap_up=wrapping)
        return scores
