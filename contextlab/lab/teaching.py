"""What the lab's teaching views say about a curve: measured or interpolated, and when a reorder helps.

Pure functions over the published position curves (``contextlab.curves.published``): the views print
their sentences, tests check them without a browser.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..curves.published import load_position_curves
from ..errors import InvalidInputError
from ..validation import parse_int

__all__ = [
    "is_measured",
    "curve_name",
    "accuracy_phrase",
    "ReorderVerdict",
    "reorder_verdict",
    "SAME_ACCURACY",
    "score_text",
    "score_change_text",
    "HELPS_SCENARIO",
    "curve_dip",
    "strongest_count",
    "most_marked_model",
    "parse_order",
    "step_sentence",
    "score_range_note",
    "middle_zone",
    "dip_by_count",
]

#: The scenario that shows a reorder clearly helping (an answer deep in the ranking).
HELPS_SCENARIO = "lost_in_the_middle"


def is_measured(model: str, n_docs: int) -> bool:
    """Return True when ``model``'s curve was published for exactly ``n_docs`` documents."""
    return n_docs in load_position_curves().doc_counts(model)


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


#: A difference smaller than this, in accuracy points, is no difference: the curves give one decimal.
SAME_ACCURACY = 0.1


@dataclass(frozen=True)
class ReorderVerdict:
    """What a reorder does for one document, read off the curve in use: where it was, where it goes."""

    before: int  # the document's position in relevance order (1 = first)
    after: int  # its position under the reorder
    gain: float  # accuracy points at ``after`` minus at ``before``, rounded to the curve's one decimal
    text: str

    @property
    def helps(self) -> bool:
        """True when the reorder moves the document to a position the curve reads better."""
        return self.gain >= SAME_ACCURACY


_PAYS_OFF = (
    "A reorder pays off when the answer sits deep in the ranking, where relevance order would bury it in the middle."
)


def reorder_verdict(
    curve: Sequence[float],
    before: int,
    after: int,
    model: str,
    *,
    what: str = "the answer",
    reorder: str = "the reorder",
    would: bool = False,
    undecided: str | None = None,
) -> ReorderVerdict:
    """Return whether ``reorder`` helps the document it moves from pos ``before`` to pos ``after``.

    Both positions are read off ``curve`` (accuracy in %, position 1 first), the curve the page
    shows: the verdict follows from where this block's answer (or most relevant document) sits
    in relevance order and after the reorder, never from the curve's shape alone. ``would``
    words it for a reorder that is not applied (the block is in relevance order). ``undecided``
    (what a measured curve's tests show, when they do not tell its positions apart) keeps the
    numbers and says that these data cannot tell whether the move helps.
    """
    if not (1 <= before <= len(curve) and 1 <= after <= len(curve)):
        raise InvalidInputError(f"positions must lie within the curve's 1..{len(curve)}; got {before} and {after}")
    was, now = curve[before - 1], curve[after - 1]
    gain = round(now - was, 1)
    move, leave, help_, can, neither = (
        ("would move", "would leave", "would help", "could", "would neither help nor hurt")
        if would
        else ("moves", "leaves", "helps", "can", "neither helps nor hurts")
    )
    if undecided is not None and before != after:
        return ReorderVerdict(
            before,
            after,
            0.0,
            (
                f"{_upper(reorder)} {move} {what} from pos {before} in relevance order ({was:.1f}%) to pos {after} "
                f"({now:.1f}%) on this curve, but whether that helps these data cannot tell: {undecided}."
            ),
        )
    if before == after:
        text = (
            f"{_upper(reorder)} {leave} {what} where relevance order puts it, at pos {after} ({now:.1f}%): "
            f"here it {can} neither help nor hurt. {_PAYS_OFF}"
        )
    elif gain >= SAME_ACCURACY:
        text = (
            f"Here {reorder} {help_}: it {move} {what} from pos {before} in relevance order ({was:.1f}%) "
            f"to pos {after} ({now:.1f}%), which {model} reads {gain:.1f} points better."
        )
    elif gain <= -SAME_ACCURACY:
        text = (
            f"Here a reorder cannot beat relevance order: {reorder} {move} {what} from pos {before} "
            f"({was:.1f}%) to pos {after} ({now:.1f}%), which {model} reads {-gain:.1f} points worse. "
            f"{_PAYS_OFF}"
        )
    else:
        text = (
            f"{_upper(reorder)} {move} {what} from pos {before} to pos {after}, which {model} reads about "
            f"the same ({was:.1f}% and {now:.1f}%): here it {neither}. {_PAYS_OFF}"
        )
    return ReorderVerdict(before, after, gain, text)


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def score_text(score: float) -> str:
    """Return a placement score (a share, 0-1) as the lab writes it everywhere: ``86.1%``."""
    return f"{score:.1%}"


def score_change_text(difference: float) -> str:
    """Return a difference of two placement scores in points of that percentage: ``+1.2 points``."""
    points = round(difference * 100, 1)
    return f"{points:+.1f} points" if points else "0.0 points"


def curve_dip(points: list[tuple[int, float]]) -> float:
    """Return how far a curve's lowest point lies below its better end, in points."""
    return max(points[0][1], points[-1][1]) - min(a for _, a in points)


def strongest_count(model: str) -> int:
    """Return the measured document count at which ``model``'s middle dips furthest."""
    data = load_position_curves()
    return max(data.doc_counts(model), key=lambda n: curve_dip(data.curve(model, n)))


def most_marked_model() -> str:
    """Return the model whose middle dips furthest below its better end (the clearest example)."""
    data = load_position_curves()

    def dip(model: str) -> float:
        counts = data.doc_counts(model)
        return curve_dip(data.curve(model, counts[len(counts) // 2]))

    return max(data.models(), key=dip)


def parse_order(text: str, n: int) -> list[int]:
    """Return the 0-based ranks of a typed order such as "1 3 5 4 2" (a permutation of 1..n).

    Raises ``InvalidInputError`` (a ``ValueError``) saying what is wrong: not numbers, out of
    range, repeated or missing.
    """
    parts = text.replace(",", " ").split()
    try:
        ranks = [parse_int(p, field="order") for p in parts]
    except InvalidInputError:
        raise InvalidInputError(
            "order: type relevance ranks as whole numbers separated by spaces, e.g. 1 3 2"
        ) from None
    if sorted(ranks) != list(range(1, n + 1)):
        missing = sorted(set(range(1, n + 1)) - set(ranks))
        repeated = sorted({r for r in ranks if ranks.count(r) > 1})
        outside = sorted({r for r in ranks if not 1 <= r <= n})
        problems = []
        if outside:
            problems.append(f"outside 1..{n}: {outside}")
        if repeated:
            problems.append(f"repeated: {repeated}")
        if missing:
            problems.append(f"missing: {missing}")
        raise InvalidInputError(f"order: give each rank 1..{n} exactly once ({'; '.join(problems)})")
    return [r - 1 for r in ranks]


def step_sentence(
    step: int, order: list[int], labels: list[str], curve: list[float], model: str, ranks: list[int] | None = None
) -> str:
    """Return what step ``step`` of the reorder does, with honest accuracy numbers.

    ``ranks[k]`` is the engine's relevance rank of the k-th most relevant document in the block
    (default ``k + 1``): the sentence names documents by the rank every other view shows.
    """
    n = len(order)
    if not step:
        return f"The block has {n} empty positions. Press Next to place the most relevant document."
    rank = step - 1
    slot = order.index(rank) + 1
    side = "at the front" if slot <= (n + 1) // 2 else "at the back"
    inner = curve[1:-1] or curve
    middle = min(inner)
    shown = ranks[rank] if ranks is not None else rank + 1
    text = (
        f"Step {step}: rank {shown} ({labels[rank]}) goes to pos {slot} of {n}, {side}; "
        f"{model} reads that position with {curve[slot - 1]:.1f}% accuracy"
    )
    gain = curve[slot - 1] - middle
    if n >= 3 and abs(gain) < 2.0:
        text += (
            f", about the same as the middle's lowest ({middle:.1f}%): with {n} documents "
            f"this curve barely rises there, so this placement gains little. With more "
            f"documents the U is stronger (step 1)"
        )
    elif n >= 3:
        text += f", {gain:.1f} points above the middle's lowest ({middle:.1f}%)"
    return text + "."


#: Below this spread (in score points) the page says ordering hardly matters for these documents.
_SMALL_SPREAD = 0.01


def score_range_note(worst: float, best: float, n: int) -> str:
    """Return one sentence on how much ordering can change the score of these ``n`` documents."""
    note = (
        f"The worst possible placement of these {n} documents scores {score_text(worst)}, the best {score_text(best)}."
    )
    if best - worst < _SMALL_SPREAD:
        note += " The spread is small: the documents are about equally relevant, so their order matters little here."
    return note


def middle_zone(n: int) -> tuple[int, int] | None:
    """Return the first and last position of the middle third of ``n`` positions, or None."""
    # The middle third is the low part of every published U curve.
    if n < 3:
        return None
    first, last = n // 3 + 1, n - n // 3
    return (first, last) if first <= last else None


def dip_by_count(model: str) -> dict[int, float]:
    """Return, per measured document count, how far ``model``'s middle dips below its better end."""
    data = load_position_curves()
    return {n: curve_dip(data.curve(model, n)) for n in data.doc_counts(model)}
