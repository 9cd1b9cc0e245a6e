"""Whether two results differ, decided once from the difference and its interval.

Every sentence the product prints about two configurations ("take B", "cannot be told apart",
"no difference was seen", "cannot tell (N = 1)") starts from ``verdict``: B against A is
``above`` or ``below`` only when its 95% interval excludes 0 (and McNemar's p < α where a yes/no
metric gives one); ``same`` when no question differs at all; ``cannot_tell`` otherwise, and
always on fewer than ``MIN_PAIRS`` questions, where no interval can be had; ``no_pairs`` when
no question was measured under both.
"""

from __future__ import annotations

import math
from typing import Literal

from ..paired import ALPHA
from .stats import PairedDifference

__all__ = ["MIN_PAIRS", "Verdict", "verdict", "verdict_words"]

#: Fewer paired questions than this carry no interval: one question says nothing of the next.
MIN_PAIRS = 2

Verdict = Literal["above", "below", "same", "cannot_tell", "no_pairs"]


def verdict(diff: PairedDifference, *, alpha: float = ALPHA) -> Verdict:
    """Return what B - A (``diff``) shows: above, below, same, cannot_tell or no_pairs."""
    if diff.n == 0 or math.isnan(diff.difference):
        return "no_pairs"
    if diff.n < MIN_PAIRS:
        return "cannot_tell"
    tested = diff.p_value is None or diff.p_value < alpha
    if diff.high < 0 and tested:
        return "below"
    if diff.low > 0 and tested:
        return "above"
    unchanged = (diff.only_a, diff.only_b) == (0, 0) if diff.only_a is not None else diff.low == diff.high == 0
    return "same" if unchanged else "cannot_tell"


def verdict_words(found: Verdict, n: int) -> str:
    """Return ``found`` in words for ``n`` paired questions (``cannot tell (N = 1)``, ...)."""
    questions = "1 question" if n == 1 else f"{n:,} questions"
    if found == "cannot_tell":
        return f"cannot tell (N = {n:,})" if n < MIN_PAIRS else f"cannot be told apart on {questions}"
    return {
        "above": f"credibly above on {questions}",
        "below": f"credibly below on {questions}",
        "same": f"no difference on any of {questions}",
        "no_pairs": "no question measured under both",
    }[found]
