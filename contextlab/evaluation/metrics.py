"""What one configuration did to one labelled question, and the per-configuration aggregates.

No LLM is involved: the gold document's fate in the block is read from the build's trace, and
``expected_accuracy`` is the accuracy Liu et al. (2024, TACL) *published* for a model when the
answer sits at that relative position (``contextlab.positional``): an estimate from the
published curve, not a measurement of your model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..positional import CITATION, accuracy_at, load_position_curves
from ..types import ContextResult, Document
from .sets import EvalQuestion, normalize_answer

__all__ = [
    "METRIC_COLUMNS",
    "RATE_METRICS",
    "SUMMARY_METRICS",
    "DEFAULT_MODEL",
    "EXPECTED_ACCURACY_NOTE",
    "PreparedQuestion",
    "prepare_question",
    "question_metrics",
    "gold_zone",
    "normalized_block",
    "Aggregator",
    "BOOTSTRAP_MAX_QUESTIONS",
    "aggregate",
    "bootstrap_interval",
]

#: The per-question columns, in ``results.csv`` order (after config, query_id and the grid keys).
METRIC_COLUMNS: tuple[str, ...] = (
    "gold_retrieved", "gold_rank", "gold_in_block", "gold_position", "block_docs",
    "answer_in_block", "tokens_used", "duplicates_removed", "expected_accuracy",
)
#: Yes/no metrics: their mean is a rate.
RATE_METRICS: tuple[str, ...] = ("gold_retrieved", "gold_in_block", "answer_in_block")
#: The metrics the summary aggregates (with 95% bootstrap intervals).
SUMMARY_METRICS: tuple[str, ...] = (
    "gold_retrieved", "gold_in_block", "answer_in_block", "expected_accuracy",
    "tokens_used", "block_docs", "gold_position", "duplicates_removed",
)
DEFAULT_MODEL = "GPT-3.5-Turbo"
EXPECTED_ACCURACY_NOTE = (
    "expected_accuracy is an estimate, not a measurement: the accuracy (%) Liu et al. published for "
    "the model when the answer document sits at the gold document's relative position in the block "
    "(interpolated), or its closed-book accuracy when the gold is not in the block. Source: " + CITATION
)
_BOOTSTRAP_SAMPLES = 1000


@dataclass
class PreparedQuestion:
    """A question with its documents and what does not depend on the configuration."""

    question: EvalQuestion
    documents: list[Document]
    gold: list[int]          # input indices of gold documents, most relevant first
    gold_rank: int | None    # 1-based relevance rank of the best gold document
    answers: tuple[str, ...]  # normalised answer strings (empty ones dropped)


def _is_gold(doc: Document, q: EvalQuestion) -> bool:
    doc_id = doc.metadata.get("id")
    if doc_id is not None and (str(doc_id) in q.gold_ids or str(doc_id) in q.gold_sources):
        return True
    return doc.source is not None and doc.source in q.gold_sources


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


@lru_cache(maxsize=4096)
def _expected(model: str, n_docs: int, position: int | None) -> float | None:
    if position is None:
        return load_position_curves().closed_book(model)
    return round(accuracy_at(model, n_docs, position), 3)


def question_metrics(prep: PreparedQuestion, result: ContextResult, model: str) -> dict[str, Any]:
    """Return the metric columns for one question under one configuration (None = not defined)."""
    labelled = prep.question.has_gold or bool(prep.answers)
    positions = {t.input_index: t.position for t in result.trace if t.position is not None}
    block_docs = len(result.included_docs)
    in_block = [i for i in prep.gold if i in positions]
    gold_position = positions[in_block[0]] if in_block else None
    answer = None
    if prep.answers:
        answer = _holds_answer(normalized_block(result.context_block), prep.answers)
    return {
        "gold_retrieved": bool(prep.gold) if labelled else None,
        "gold_rank": prep.gold_rank,
        "gold_in_block": bool(in_block) if labelled else None,
        "gold_position": gold_position,
        "block_docs": block_docs,
        "answer_in_block": answer,
        "tokens_used": result.tokens_used,
        "duplicates_removed": result.duplicates_removed,
        "expected_accuracy": _expected(model, block_docs, gold_position) if labelled else None,
    }


def gold_zone(position: int | None, block_docs: int) -> str:
    """Return where the gold document sits: "first", "middle", "last" or "not in block"."""
    if position is None:
        return "not in block"
    if position == 1:
        return "first"
    return "last" if position == block_docs else "middle"


# -- aggregates ----------------------------------------------------------------------------


# Resampled indices are drawn in blocks of at most this many, so a million questions never
# needs a (1000 x n) index matrix in memory at once.
_BOOTSTRAP_BLOCK_ELEMENTS = 4_000_000


def bootstrap_interval(values: Sequence[float], *, seed: int = 0) -> tuple[float, float, float]:
    """Return ``(mean, low, high)``: the mean and its 95% percentile bootstrap interval.

    1,000 resamples of the questions from a generator seeded with ``seed``, so the interval is
    the same on every run, and every configuration with the same number of questions is
    resampled with the same draws (a paired comparison).
    """
    import numpy as np

    data = np.asarray(values, dtype=float)
    n = data.size
    if n == 0:
        return (math.nan, math.nan, math.nan)
    rng = np.random.default_rng(seed)
    per_block = max(1, _BOOTSTRAP_BLOCK_ELEMENTS // n)
    means = np.empty(_BOOTSTRAP_SAMPLES)
    for start in range(0, _BOOTSTRAP_SAMPLES, per_block):
        count = min(per_block, _BOOTSTRAP_SAMPLES - start)
        means[start:start + count] = data[rng.integers(0, n, size=(count, n))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return (float(data.mean()), float(low), float(high))


#: Above this many questions an interval is the normal approximation (mean ± 1.96 standard
#: errors), which the bootstrap of a mean equals at that size; memory and time stay bounded.
BOOTSTRAP_MAX_QUESTIONS = 100_000


class Aggregator:
    """Collects rows chunk by chunk; ``summaries()`` gives each configuration's means and 95% intervals.

    Memory is bounded: per configuration and metric it keeps a running count, sum and sum of
    squares, plus the values themselves only up to ``max_bootstrap`` questions.
    """

    def __init__(self, grid_keys: Sequence[str], *, max_bootstrap: int = BOOTSTRAP_MAX_QUESTIONS) -> None:
        self.grid_keys = list(grid_keys)
        self.max_bootstrap = max_bootstrap
        self._configs: dict[str, dict[str, Any]] = {}

    def add(self, rows: Sequence[Mapping[str, Any]]) -> Aggregator:
        """Count ``rows`` in (any number, any configurations); return self."""
        from array import array

        for row in rows:
            entry = self._configs.get(row["config"])
            if entry is None:
                entry = self._configs[row["config"]] = {
                    "settings": {k: row[k] for k in self.grid_keys}, "questions": 0,
                    "values": {m: array("d") for m in SUMMARY_METRICS},
                    "stats": {m: [0, 0.0, 0.0] for m in SUMMARY_METRICS},
                }
            entry["questions"] += 1
            for metric in SUMMARY_METRICS:
                value = row.get(metric)
                if value is None:
                    continue
                v = float(value)
                stats = entry["stats"][metric]
                stats[0] += 1
                stats[1] += v
                stats[2] += v * v
                values = entry["values"][metric]
                if values is not None:
                    values.append(v)
                    if len(values) > self.max_bootstrap:
                        entry["values"][metric] = None
        return self

    def summaries(self, *, seed: int = 0) -> list[dict[str, Any]]:
        """Return one summary per configuration, in first-seen order (see ``aggregate``)."""
        out = []
        for label, entry in self._configs.items():
            summary: dict[str, Any] = {"config": label, **entry["settings"], "questions": entry["questions"]}
            for metric in SUMMARY_METRICS:
                values = entry["values"][metric]
                n, total, squares = entry["stats"][metric]
                if values is not None:
                    mean, low, high = bootstrap_interval(values, seed=seed)
                else:
                    mean, low, high = _normal_interval(n, total, squares)
                summary[metric] = None if math.isnan(mean) else round(mean, 6)
                summary[f"{metric}_low"] = None if math.isnan(low) else round(low, 6)
                summary[f"{metric}_high"] = None if math.isnan(high) else round(high, 6)
                summary[f"{metric}_n"] = n
            out.append(summary)
        return out


def _normal_interval(n: int, total: float, squares: float) -> tuple[float, float, float]:
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = total / n
    variance = max(0.0, squares / n - mean * mean) * n / max(1, n - 1)
    half = 1.96 * math.sqrt(variance / n)
    return (mean, mean - half, mean + half)


def aggregate(rows: Sequence[Mapping[str, Any]], grid_keys: Sequence[str], *, seed: int = 0) -> list[dict[str, Any]]:
    """Return one summary per configuration (in first-seen order): each metric's mean and 95% CI.

    Rates (gold_in_block, ...) are fractions; expected_accuracy is in percent. A metric's mean
    is over the questions where it is defined (gold_position only where the gold is in the block).
    Intervals are bootstrapped up to ``BOOTSTRAP_MAX_QUESTIONS`` questions, normal above.
    """
    return Aggregator(grid_keys).add(rows).summaries(seed=seed)
