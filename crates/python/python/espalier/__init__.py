"""Espalier: grammar-constrained decoding for code models, as a Python package.

The Rust core (``espalier._espalier``, built with PyO3) gives:

- :class:`Vocabulary`: a model's tokens as raw bytes, from a GGUF file
  (``Vocabulary.from_gguf``), a Hugging Face ``tokenizer.json``
  (``from_tokenizer_json`` / ``from_tokenizer_str``) or byte strings
  (``from_token_bytes``);
- :class:`Constraint`: Python (``Constraint.python(vocab, strategy="exact"|"syncode")``;
  ``names=True``: no read of an unbound name, the CLI's mode ``names``), Go 1.19
  (``Constraint.go``, same arguments), fill-in-the-middle
  (``Constraint.fim(vocab, prefix=..., suffix=...)``), a Lark grammar of yours
  (``Constraint.grammar``) or sLua over a game API (``Constraint.slua``), with
  ``commit(token_id)``, ``fill_mask(buffer)``, ``fill_bitmask(words)``,
  ``mask_logits(buffer)``, ``is_complete()``, ``inspect()`` and ``clone()``;
- exceptions, all subclasses of :class:`EspalierError`.

Logits processors: :mod:`espalier.hf` (transformers) and :mod:`espalier.llama_cpp`
(llama-cpp-python); both wrap up before the token budget by default
(:mod:`espalier.wrap_up`). Comparison with llguidance: ``python -m espalier.bench``.
"""

from importlib import resources as _resources

from ._espalier import (
    BufferError,
    Constraint,
    EspalierError,
    FinishedError,
    GrammarError,
    PromptRejectedError,
    ThreadError,
    TokenIdError,
    TokenRejectedError,
    VocabMismatchError,
    WRAP_UP_MARGIN,
    VocabularyError,
    Vocabulary,
)
from .wrap_up import WrapUp

__all__ = [
    "BufferError",
    "Constraint",
    "EspalierError",
    "FinishedError",
    "GrammarError",
    "PromptRejectedError",
    "ThreadError",
    "TokenIdError",
    "TokenRejectedError",
    "VocabMismatchError",
    "VocabularyError",
    "Vocabulary",
    "WRAP_UP_MARGIN",
    "WrapUp",
    "python_lines_grammar",
]


def python_lines_grammar() -> str:
    """The Lark grammar of Python without real indentation (lines; blocks unchecked)
    that both Espalier and llguidance accept: what ``espalier.bench`` compares on."""
    return (_resources.files(__package__) / "grammars" / "python_lines.lark").read_text()
