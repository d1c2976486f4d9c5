"""A logits processor for llama-cpp-python.

Usage::

    import llama_cpp, espalier
    from espalier.llama_cpp import LogitsProcessor
    llm = llama_cpp.Llama(model_path="model.gguf")
    vocab = espalier.Vocabulary.from_gguf("model.gguf")
    proc = LogitsProcessor(espalier.Constraint.python(vocab, prompt=prompt))
    out = llm.create_completion(prompt, logits_processor=llama_cpp.LogitsProcessorList([proc]))

One processor serves one generation: it commits the tokens llama.cpp appended since
its last call (llama.cpp passes all ids, prompt first; the first call's ids are the
prompt), then sets the logits of every token the constraint refuses to -inf in place
(no allocation per step). ``proc.constraint`` is the state after the last call.
"""

from __future__ import annotations

from ._espalier import Constraint, EspalierError


class LogitsProcessor:
    """Constrains one llama-cpp-python generation with an ``espalier.Constraint``."""

    def __init__(self, constraint: Constraint):
        self.constraint = constraint
        self.tokens = []  # the ids committed so far (after the prompt)
        self._seen = None  # number of ids committed (or taken as prompt) so far

    def reset(self, constraint: Constraint) -> None:
        """Starts over with a fresh constraint (for the next generation)."""
        self.constraint = constraint
        self.tokens = []
        self._seen = None

    def __call__(self, input_ids, scores):
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
        self.constraint.mask_logits(scores)
        return scores
