"""How the lab writes a dedup threshold and a similarity: never rounded up past what the engine compares.

A pair is a duplicate when its similarity is at or above the threshold, so a number rounded up
reads wrong at the boundary: a pair at 0.776 shown as 0.78 beside a threshold of 0.78 looks caught
and is not. Similarities are cut (floored), thresholds written with the digits they have.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Decimal

__all__ = [
    "threshold_text",
    "threshold_decimals",
    "similarity_floor",
    "similarity_text",
    "catching_threshold",
    "SLIDER_STEP",
]

#: The step of the lab's threshold slider: the thresholds a reader can pick by dragging.
SLIDER_STEP = 0.01


def threshold_decimals(threshold: float) -> int:
    """Return how many decimals write ``threshold`` exactly (at least two, at most six)."""
    text = format(Decimal(repr(float(threshold))).normalize(), "f")
    places = len(text.partition(".")[2])
    return min(max(places, 2), 6)


def threshold_text(threshold: float) -> str:
    """Return ``threshold`` with the digits it has: ``0.85``, ``0.776``, ``1.00``."""
    return f"{threshold:.{threshold_decimals(threshold)}f}"


def similarity_floor(similarity: float, decimals: int = 3) -> float:
    """Return ``similarity`` cut (not rounded) to ``decimals`` places: 0.7769 -> 0.776."""
    quantum = Decimal(1).scaleb(-decimals)
    return float(Decimal(repr(float(similarity))).quantize(quantum, rounding=ROUND_FLOOR))


def similarity_text(similarity: float) -> str:
    """Return a similarity to three places, cut, so it never reads above a threshold it is below."""
    return f"{similarity_floor(similarity):.3f}"


def catching_threshold(similarity: float, step: float = SLIDER_STEP) -> float:
    """Return the highest threshold on the slider's ``step`` grid that catches a pair at ``similarity``.

    A pair is caught when similarity >= threshold, so this is ``similarity`` rounded *down* to the
    step: a pair at 0.776 is caught at 0.77, not at 0.78.
    """
    exponent = Decimal(repr(step)).normalize().as_tuple().exponent
    places = -exponent if isinstance(exponent, int) else 0  # a finite step has a whole exponent
    return similarity_floor(similarity, max(places, 0))
