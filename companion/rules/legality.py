"""Legality as a query: whether the rules take an event now is asked of the fold itself
(as python-chess asks a board whether a move is legal), so what a screen allows or
offers is what a submission of the same event would be told, rule for rule (R11)."""
from .refusal import Refusal
from .state import GameState, apply


def refusal(state: GameState, event) -> Refusal | None:
    """The refusal a submission of `event` would get now; None if the rules take it."""
    try:
        apply(state, event)
    except Refusal as refused:
        return refused
    return None


def allowed(state: GameState, event) -> bool:
    """Whether the rules take `event` now."""
    return refusal(state, event) is None
