"""What the lab's teaching views say about a curve: measured or interpolated, and when a reorder helps.

Pure functions over the published position curves (``contextlab.curves.published``): the views print
their sentences, tests check them without a browser.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..curves.published import load_position_curves
from ..curves.reading import CURVE_QUESTIONS
from ..errors import InvalidInputError
from ..intervals import Z_95, format_bounds
from ..models.scoring import normalize_answer
from ..paired import ALPHA, rate_difference
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
    "closed_book_sentence",
    "ScoreRange",
    "score_range",
    "ranking_verdicts",
    "ranking_sentence",
    "position_side",
    "cut_sentence",
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
    side = position_side(slot, n)
    inner = curve[1:-1] or curve
    middle = min(inner)
    shown = ranks[rank] if ranks is not None else rank + 1
    text = (
        f"Step {step}: rank {shown} ({labels[rank]}) goes to pos {slot} of {n} ({side}); "
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


def position_side(slot: int, n: int) -> str:
    """Return where pos ``slot`` of ``n`` lies: "first", "last", "near the front", "in the middle", "near the back".

    The middle is the middle third (``middle_zone``): pos 11 of 21 is in the middle, never "at the front".
    """
    if not 1 <= slot <= n:
        raise InvalidInputError(f"slot must lie within 1..{n}; got {slot}", field="slot")
    if slot == 1:
        return "first"
    if slot == n:
        return "last"
    zone = middle_zone(n)
    if zone is None or slot < zone[0]:
        return "near the front"
    return "near the back" if slot > zone[1] else "in the middle"


def closed_book_sentence(low: float, closed: float, questions: int = CURVE_QUESTIONS) -> str:
    """Return what a curve's low point (%) says against closed-book accuracy (%), both on ``questions`` questions.

    "A buried answer is worse than none" only when the closed-book accuracy is higher and the two
    rates are told apart (Newcombe's 95% interval excludes 0 and the pooled z test's p < 0.05).
    Without per-question answers the test is unpaired, the cautious choice for the same questions.
    """
    if low >= closed:
        return ""
    diff, lower, upper, p = rate_difference(low / 100 * questions, questions, closed / 100 * questions, questions)
    gap = format_bounds(100 * lower, 100 * upper)
    if p < ALPHA and lower > 0:
        return (
            f" That is below the {closed:.1f}% it scores with no documents at all "
            f"({100 * diff:.1f} points, 95% interval {gap}, {_p(p)}): a buried answer is worse than none."
        )
    return (
        f" With no documents at all it scores {closed:.1f}%, {100 * diff:.1f} points more, but {questions:,} "
        f"questions cannot tell the two apart (95% interval {gap}, {_p(p)})."
    )


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


@dataclass(frozen=True)
class ScoreRange:
    """A placement score (a share, 0-1) and its 95% interval from the curve's own uncertainty."""

    score: float
    low: float
    high: float

    def overlaps(self, other: ScoreRange) -> bool:
        """True when the two intervals share a point: the data cannot tell the scores apart."""
        return self.low <= other.high and other.low <= self.high


def score_range(
    relevances: Sequence[float], accuracies: Sequence[float], questions: int = CURVE_QUESTIONS
) -> ScoreRange:
    """Return the placement score of ``relevances`` at positions read ``accuracies`` (%), with its 95% interval.

    Each position's accuracy is a rate on ``questions`` questions (standard error
    sqrt(a(1-a)/N)); the score, a weighted sum of them over the best accuracy, carries their
    errors (taken as independent; the best accuracy, shared by every ordering, as fixed).
    """
    total, best = sum(relevances), max(accuracies)
    if total <= 0 or best <= 0:
        return ScoreRange(0.0, 0.0, 0.0)
    weights = [r / (total * best) for r in relevances]
    score = sum(w * a for w, a in zip(weights, accuracies, strict=True))
    variance = sum(
        (w * 100) ** 2 * (a / 100) * (1 - a / 100) / questions for w, a in zip(weights, accuracies, strict=True)
    )
    half = Z_95 * math.sqrt(variance)
    return ScoreRange(score, max(0.0, score - half), min(1.0, score + half))


def ranking_verdicts(ranges: Sequence[tuple[str, ScoreRange]]) -> dict[str, str]:
    """Return per ordering "highest", "cannot tell" (its interval overlaps the highest's) or "lower"."""
    if not ranges:
        return {}
    top = max(ranges, key=lambda kv: kv[1].score)
    return {
        name: "highest" if name == top[0] else ("cannot tell" if r.overlaps(top[1]) else "lower") for name, r in ranges
    }


def ranking_sentence(ranges: Sequence[tuple[str, ScoreRange]]) -> str:
    """Return one sentence on which ordering scores best, said only as far as the intervals tell."""
    verdicts = ranking_verdicts(ranges)
    if len(verdicts) < 2:
        return ""
    best = next(name for name, v in verdicts.items() if v == "highest")
    tied = [name for name, v in verdicts.items() if v == "cannot tell"]
    if not tied:
        return f"{best} scores best, and its interval clears every other ordering's."
    if len(tied) == len(verdicts) - 1:
        return "These data cannot tell the orderings apart: every interval overlaps the best one's."
    return (
        f"{best} scores highest, but these data cannot tell it from {_names(tied)}: their intervals overlap. "
        "The others score lower."
    )


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def cut_sentence(kept: str, original: str, gold_answers: Sequence[str]) -> str:
    """Return what cutting a document to fit did to the answer it holds, as far as the known answers tell.

    ``kept`` is the text left in the block, ``original`` the whole document. An answer counts as
    present when its normalised form (as the scoring of model answers reads it) is in the text.
    """
    answers = [a for a in (normalize_answer(g) for g in gold_answers) if a]
    held = [a for a in answers if a in normalize_answer(original)]
    if not held:
        return "It was cut to fit: the budget kept only its start."
    if any(a in normalize_answer(kept) for a in held):
        return "It was cut to fit, but the answer is still in the part that was kept."
    return "The answer was cut: it is in the part the budget left out."
