"""What the lab's teaching views say about a curve: measured or interpolated, and when a reorder helps.

Pure functions over the published position curves (``contextlab.positional``): the views print
their sentences, tests check them without a browser.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import positional

__all__ = ["is_measured", "curve_name", "accuracy_phrase", "reorder_cannot_help", "HELPS_SCENARIO"]

#: The scenario that shows a reorder clearly helping (an answer deep in the ranking).
HELPS_SCENARIO = "lost_in_the_middle"


def is_measured(model: str, n_docs: int) -> bool:
    """Return True when ``model``'s curve was published for exactly ``n_docs`` documents."""
    return n_docs in positional.load_position_curves().doc_counts(model)


def curve_name(model: str, n_docs: int) -> str:
    """Return what the curve for ``n_docs`` documents is: measured, or interpolated from the published points."""
    if is_measured(model, n_docs):
        return "measured accuracy at this position"
    return "accuracy at this position (interpolated from the published points)"


def accuracy_phrase(model: str, n_docs: int, value: float) -> str:
    """Return "{model} answered 61.2% correctly" for a measured point, or say it is interpolated."""
    if is_measured(model, n_docs):
        return f"{model} answered {value:.1f}% correctly"
    return f"{model} reads {value:.1f}% (interpolated from the published points for {n_docs} documents)"


def reorder_cannot_help(curve: Sequence[float], model: str) -> str | None:
    """Return why lost-in-the-middle cannot beat relevance order under ``curve``, or None if it can.

    The reorder keeps the most relevant document first, as relevance order does, and moves
    the second most relevant to the last position; when the curve reads its last position
    below its second, that move loses, and the documents deeper down gain little.
    """
    n = len(curve)
    if n < 4 or curve[-1] >= curve[1]:
        return None
    return (f"Here a reorder cannot beat relevance order: the most relevant document is first either "
            f"way, and the reorder moves the second most relevant to pos {n}, which {model} reads at "
            f"{curve[-1]:.1f}% — below pos 2's {curve[1]:.1f}%. The reorder pays off when the answer sits "
            f"deep in the ranking, where relevance order would bury it in the middle.")
