"""The wrap-up of the logits processors: near the end of the token budget the mask is
narrowed to the constraint's finishing mask (the tokens that lead towards the shortest
completion), so a constrained generation closes its program instead of running out of
budget mid-statement. The decoder's wrap-up (``crates/decode/src/wrap_up.rs``), as the
processors can do it: they see one step at a time and cannot take a token back.

It begins on whichever comes first, and stays on to the end:

- the window: at most ``window`` tokens of the budget are left (default
  :data:`WINDOW`);
- the finishing distance: fewer tokens are left than the constraint's finishing
  distance (``Constraint.finishing_distance``, probed before every step until then)
  plus :data:`espalier.WRAP_UP_MARGIN`.

A step whose intersection with the finishing mask would be empty keeps the plain mask
(the wrap-up never causes a dead end). ``window=None`` turns it off.
"""

from __future__ import annotations

from typing import Optional

from ._espalier import WRAP_UP_MARGIN, Constraint, EspalierError

# The window the project's evaluations use (`espalier eval ... --wrap-up 32`): on
# HumanEval, 164 greedy, 300 tokens, it took the syntax errors of finished and
# unfinished completions to 0 (README, "Finishing").
WINDOW = 32


def budget_argument(name: str, budget: Optional[int], window: Optional[int]) -> Optional[int]:
    """Checks a processor's budget argument (``max_new_tokens`` / ``max_tokens``): a
    positive int when the wrap-up is on, ignored when it is off (``window=None``)."""
    if window is None:
        return budget
    if budget is None:
        raise EspalierError(
            f"pass {name}= (the generation's token budget, as given to the engine) so the processor "
            f"wraps up before it, or wrap_up=None to turn the wrap-up off"
        )
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise EspalierError(f"{name} must be a positive int, not {budget!r}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise EspalierError(f"wrap_up must be None or an int >= 0, not {window!r}")
    return budget


class WrapUp:
    """Whether one constraint's generation is wrapping up, step by step."""

    def __init__(self, budget: Optional[int], window: Optional[int] = WINDOW):
        self.budget = budget
        self.window = window
        self.started_at: Optional[int] = None  # the generated-token count it began at

    @property
    def on(self) -> bool:
        """Whether the wrap-up is switched on at all (a window and a budget)."""
        return self.window is not None and self.budget is not None

    def in_force(self, constraint: Constraint, generated: int) -> bool:
        """Whether the step that samples token number ``generated`` (0-based) wraps up."""
        if not self.on:
            return False
        if self.started_at is not None:
            return True
        left = self.budget - generated
        if left <= self.window:
            self.started_at = generated
            return True
        distance = constraint.finishing_distance(max(left - WRAP_UP_MARGIN, 0))
        if distance is not None and left < distance + WRAP_UP_MARGIN:
            self.started_at = generated
            return True
        return False
