"""One row of a run: a question under a configuration, what reached the block, and maybe a model's answer.

``EvalRow`` is what the loop makes (``chunks.evaluate_chunk``), the aggregates count, and
``results.csv`` writes one line of: the configuration's label and grid settings, the question's
id, its ``QuestionMetrics`` (``metrics.question_metrics``), the block when kept, and the model's
``ModelReply`` in a measured run. ``EvalRow.value(column)`` reads a row by its CSV column name,
the one place a column name becomes a field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

__all__ = ["MEASURED_COLUMNS", "EvalRow", "ModelReply", "QuestionMetrics", "RowValue", "SettingValue"]

#: A grid setting's value (``max_context_tokens=512``, ``placement="relevance"``, ...).
SettingValue = int | float | str | bool
#: A value in a row's ``results.csv`` cell (None: empty, the metric is not defined there).
RowValue = int | float | str | bool | None


@dataclass(frozen=True)
class QuestionMetrics:
    """What one configuration did to one labelled question (None where a metric is not defined).

    The fields are ``results.csv``'s metric columns, in order (``metrics.METRIC_COLUMNS``).
    """

    gold_retrieved: bool | None
    gold_rank: int | None
    gold_in_block: bool | None
    gold_recall: float | None
    gold_via_copy: bool | None
    gold_position: int | None
    in_block: int
    answer_in_block: bool | None
    tokens_used: int
    duplicates_removed: int
    expected_accuracy: float | None
    curve: str | None
    curve_low: float | None
    curve_high: float | None
    gold_note: str | None


@dataclass(frozen=True)
class ModelReply:
    """A model's answer to a row's prompt: the answer line, right or wrong (None: no gold answers), cost."""

    answer: str
    correct: bool | None
    latency_ms: float | None
    prompt_tokens: int | None
    completion_tokens: int | None


#: The columns a measured run adds to every row, after the metrics.
MEASURED_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(ModelReply))
_METRICS = frozenset(f.name for f in fields(QuestionMetrics))


@dataclass(frozen=True)
class EvalRow:
    """One question under one configuration (see the module doc)."""

    config: str
    query_id: str
    settings: Mapping[str, SettingValue]
    metrics: QuestionMetrics
    block: str | None = None
    reply: ModelReply | None = None

    def value(self, column: str) -> RowValue:
        """Return the row's value in ``results.csv`` column ``column`` (None for a column it has no value in)."""
        if column in _METRICS:
            found: RowValue = getattr(self.metrics, column)
            return found
        if column in self.settings:
            return self.settings[column]
        if column in MEASURED_COLUMNS:
            said: RowValue = None if self.reply is None else getattr(self.reply, column)
            return said
        if column in ("config", "query_id", "block"):
            own: RowValue = getattr(self, column)
            return own
        return None

    def number(self, column: str) -> float | None:
        """Return ``value(column)`` as a number (yes/no as 1/0), None where the row has none."""
        value = self.value(column)
        if value is None or isinstance(value, str):
            return None
        return float(value)
