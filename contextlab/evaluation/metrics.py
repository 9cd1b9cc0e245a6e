"""What one configuration did to one labelled question, and the per-configuration aggregates.

No LLM is involved: the gold document's fate in the block is read from the build's trace, and
``expected_accuracy`` is the accuracy Liu et al. (2024, TACL) *published* for a model when the
answer sits at that relative position (``contextlab.curves.published``): an estimate from the
published curve, not a measurement of your model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from functools import lru_cache

from ..curves.curve_file import PositionData
from ..curves.published import CITATION, accuracy_at
from ..curves.reading import read_curve
from ..intervals import wilson_interval
from ..types import ContextResult, Document
from .rows import EvalRow, QuestionMetrics
from .sets import EvalQuestion, normalize_answer

__all__ = [
    "METRIC_COLUMNS",
    "RATE_METRICS",
    "SUMMARY_METRICS",
    "EXPECTED_ACCURACY_NOTE",
    "PreparedQuestion",
    "prepare_question",
    "question_metrics",
    "gold_zone",
    "normalized_block",
    "apply_curve",
    "curve_reading_note",
]

#: The per-question columns, in ``results.csv`` order (after config, query_id and the grid keys).
METRIC_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(QuestionMetrics))
#: Yes/no metrics: their mean is a rate (Wilson intervals; paired: McNemar's exact test).
RATE_METRICS: tuple[str, ...] = ("gold_retrieved", "gold_in_block", "gold_via_copy", "answer_in_block")
#: The metrics the summary aggregates (with 95% intervals).
SUMMARY_METRICS: tuple[str, ...] = (
    "gold_retrieved",
    "gold_in_block",
    "gold_recall",
    "gold_via_copy",
    "answer_in_block",
    "expected_accuracy",
    "tokens_used",
    "in_block",
    "gold_position",
    "duplicates_removed",
)
EXPECTED_ACCURACY_NOTE = (
    "expected_accuracy is an estimate, not a measurement: the accuracy (%) Liu et al. published for "
    "the model when the answer document sits at the gold document's relative position in the block, "
    "on the curve the block's size calls for (gold only for a one-document block, between that and the "
    "10-document curve for 2-9 documents, interpolated between the measured curves; a larger block than "
    "any curve is read on the largest and marked 'outside every curve'), or its closed-book accuracy when "
    "the gold is not in the block. Its interval carries the published curve's own error (2,655 questions "
    "per point) as well as the questions sampled. Source: " + CITATION
)


@dataclass
class PreparedQuestion:
    """A question with its documents and what does not depend on the configuration."""

    question: EvalQuestion
    documents: list[Document]
    gold: list[int]  # input indices of gold documents, most relevant first
    gold_rank: int | None  # 1-based relevance rank of the best gold document
    answers: tuple[str, ...]  # normalised answer strings (empty ones dropped)


def _is_gold(doc: Document, q: EvalQuestion) -> bool:
    return q.is_gold(doc)  # one rule, shared with the set's check that gold names a document


def prepare_question(question: EvalQuestion, documents: Sequence[Document]) -> PreparedQuestion:
    """Return ``question`` with its gold documents found among ``documents`` and their best rank.

    Ranks follow the engine's sort: by score, highest first, ties in input order. When the
    question names no gold, documents holding a normalised answer count as gold.
    """
    docs = list(documents)
    answers = tuple(a for a in (normalize_answer(x) for x in question.answers) if a)
    order = sorted(range(len(docs)), key=lambda i: -docs[i].score)
    rank = {index: r for r, index in enumerate(order, start=1)}
    if question.has_gold:
        gold = [i for i in order if _is_gold(docs[i], question)]
    else:
        gold = [i for i in order if answers and _holds_answer(normalize_answer(docs[i].content), answers)]
    return PreparedQuestion(question, docs, gold, rank[gold[0]] if gold else None, answers)


def _holds_answer(normalised_text: str, answers: Sequence[str]) -> bool:
    return any(a in normalised_text for a in answers)


_normalized_line = lru_cache(maxsize=16384)(normalize_answer)


def normalized_block(block: str) -> str:
    """Return ``normalize_answer(block)``, normalising each line once across configurations.

    Equal to normalising the whole text: every step works within a line (the article rule's
    word boundaries fall on the newlines), and the lines are joined by the collapsed whitespace.
    """
    return " ".join(n for n in map(_normalized_line, block.split("\n")) if n)


def _gold_in_block(prep: PreparedQuestion, result: ContextResult) -> tuple[list[int], str | None]:
    """Return the block positions of the golds that reach the model, best gold first, and a note.

    A gold dropped as a duplicate of a document that is in the block reaches the model
    through that copy: it counts as present at the copy's position, and the note says so.
    """
    positions = {t.input_index: t.position for t in result.trace if t.position is not None}
    traces = {t.input_index: t for t in result.trace}
    found: list[int] = []
    notes: list[str] = []
    for gold in prep.gold:
        if gold in positions:
            found.append(positions[gold])
            continue
        trace = traces.get(gold)
        if trace is None or trace.fate != "duplicate":
            continue
        kept = trace.duplicate_of
        if kept is not None and kept in positions:
            found.append(positions[kept])
            similarity = "" if trace.similarity is None else f", similarity {trace.similarity:.2f}"
            notes.append(
                f"gold D{gold} was dropped as a copy of D{kept}{similarity}; "
                f"it counts as present through D{kept} at pos {positions[kept]}"
            )
    return found, "; ".join(notes) or None


def _gold_count(prep: PreparedQuestion) -> int:
    """Return how many gold documents the question has: named ones, or those found among its inputs."""
    q = prep.question
    return max(len(prep.gold), len(q.gold_ids), len(q.gold_sources), 1)


def question_metrics(prep: PreparedQuestion, result: ContextResult, model: str) -> QuestionMetrics:
    """Return the metric columns for one question under one configuration (None = not defined).

    ``gold_in_block`` counts a gold dropped as a near copy of a document in the block as
    present through that copy (``gold_via_copy``, and ``gold_note`` says which); with several
    golds, ``gold_recall`` is the share of them in the block. ``expected_accuracy`` reads the
    curve the block's size calls for (``curve``; ``curve_low``/``curve_high`` are its own
    95% interval there).
    """
    labelled = prep.question.has_gold or bool(prep.answers)
    in_block = len(result.included_docs)
    found, note = _gold_in_block(prep, result)
    direct = {t.input_index for t in result.trace if t.position is not None}
    gold_position = found[0] if found else None
    answer = None
    if prep.answers:
        answer = _holds_answer(normalized_block(result.context_block), prep.answers)
    reading = read_curve(model, in_block, gold_position) if labelled else None
    return QuestionMetrics(
        gold_retrieved=bool(prep.gold) if labelled else None,
        gold_rank=prep.gold_rank,
        gold_in_block=bool(found) if labelled else None,
        gold_recall=round(len(found) / _gold_count(prep), 6) if labelled else None,
        gold_via_copy=(bool(found) and not any(g in direct for g in prep.gold)) if labelled else None,
        gold_position=gold_position,
        in_block=in_block,
        answer_in_block=answer,
        tokens_used=result.tokens_used,
        duplicates_removed=result.duplicates_removed,
        expected_accuracy=reading.value if reading else None,
        curve=reading.curve if reading else None,
        curve_low=reading.low if reading else None,
        curve_high=reading.high if reading else None,
        gold_note=note,
    )


def gold_zone(position: int | None, in_block: int) -> str:
    """Return where the gold document sits: "first", "middle", "last" or "not in block"."""
    if position is None:
        return "not in block"
    if position == 1:
        return "first"
    return "last" if position == in_block else "middle"


def apply_curve(rows: Sequence[EvalRow], curves: PositionData) -> list[EvalRow]:
    """Return ``rows`` with ``expected_accuracy`` read from ``curves`` (a measured curve) instead.

    The gold at position p of a block of n documents reads the curve's model at p of n
    (interpolated as the published curves are); a gold not in the block reads its closed-book
    accuracy, a block of one gold document its gold-only accuracy. ``curve`` names the curve;
    ``curve_low``/``curve_high`` are the 95% Wilson interval of the value read on the curve's N
    (``curves.questions``; a curve that does not say is taken as exact). A block of another size
    than the curve was measured with says so in ``curve`` (see ``curve_reading_note``).
    """
    return [row if row.metrics.expected_accuracy is None else _read_measured(row, curves) for row in rows]


def _read_measured(row: EvalRow, curves: PositionData) -> EvalRow:
    """Return ``row`` with its expected accuracy read from the measured ``curves``."""
    model, questions = curves.models()[0], curves.questions
    measured = curves.doc_counts(model)
    n, position = row.metrics.in_block, row.metrics.gold_position
    if position is None:
        value = curves.closed_book(model)
    elif n == 1 and curves.oracle(model) is not None:
        value = curves.oracle(model)
    else:
        value = accuracy_at(model, n, position, data=curves)
    if value is None:
        unread = replace(
            row.metrics, expected_accuracy=None, curve=f"measured: {model}", curve_low=None, curve_high=None
        )
        return replace(row, metrics=unread)
    low, high = wilson_interval(value / 100.0 * questions, questions) if questions else (value / 100.0, value / 100.0)
    read = (
        ""
        if position is None or n == 1 or n in measured
        else f" ({n} documents read at relative depth on the {'/'.join(map(str, measured))}-document curve)"
    )
    metrics = replace(
        row.metrics,
        expected_accuracy=round(value, 3),
        curve=f"measured: {model}{read}",
        curve_low=round(100.0 * low, 3),
        curve_high=round(100.0 * high, 3),
    )
    return replace(row, metrics=metrics)


def curve_reading_note(rows: Sequence[EvalRow], curves: PositionData) -> str | None:
    """Return the warning for blocks of other sizes than the measured curve's, None when every block matches.

    A curve measured with K documents says nothing directly about a block of n != K: its gold
    at position p is read at the relative depth (p - 1) / (n - 1) of the K-document curve, which
    assumes the position effect follows relative depth.
    """
    model = curves.models()[0]
    measured = curves.doc_counts(model)
    read = [r.metrics for r in rows]
    other = sorted(
        {
            m.in_block
            for m in read
            if m.expected_accuracy is not None
            and m.gold_position is not None
            and m.in_block > 1
            and m.in_block not in measured
        }
    )
    if not other:
        return None
    count = sum(1 for m in read if m.gold_position is not None and m.in_block in other)
    sizes = ", ".join(map(str, other[:8])) + (", ..." if len(other) > 8 else "")
    return (
        f"the curve of {model} was measured with {'/'.join(map(str, measured))} documents, but {count} of "
        f"{len(rows)} rows have blocks of {sizes}: their gold at position p of n is read at relative depth "
        "(p - 1)/(n - 1) on the measured curve, which assumes the effect follows depth, not count; measure "
        "with `contextlab curve --documents N` for the block size you use to read it directly"
    )
