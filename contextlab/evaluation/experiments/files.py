"""A context experiment written down: the curve file's columns plus the kind's own, and a table to print.

Every row keeps the columns of a position-curve file (``model,total_docs,position,accuracy,kind,
questions,accuracy_low,accuracy_high``) with ``kind`` the factor varied, then the kind's own:
``context_tokens`` (length), ``distractors`` and ``distractor_kind``, ``order``, ``orders`` and
``flip_rate``, or ``answer_passage``, ``made_up`` and ``abstained``. The paired tests go in the
header as ``#`` lines, read by people and skipped by every curve reader. Every answer is written
beside the file (``name.questions.csv``): the question, the level, how it scored, the answer.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ...atomic import write_text
from ...curves.outcomes import outcomes_path
from ...errors import InvalidInputError
from ...intervals import wilson_interval
from ...models.replies import safe_line
from ...safe_text import terminal_safe
from ..sets import BUNDLED_SET
from .evidence import LevelEvidence
from .refusals import refusal_phrases_text
from .run import ExperimentResult

__all__ = [
    "CURVE_COLUMNS",
    "EXTRA_COLUMNS",
    "QUESTION_COLUMNS",
    "experiment_csv",
    "experiment_questions_csv",
    "experiment_rows",
    "experiment_table",
    "write_experiment",
]

#: The position-curve file's columns, which every experiment row keeps.
CURVE_COLUMNS = ("model", "total_docs", "position", "accuracy", "kind", "questions", "accuracy_low", "accuracy_high")
#: Each kind's own columns, after the curve's.
EXTRA_COLUMNS = {
    "length": ("context_tokens",),
    "distractors": ("distractors", "distractor_kind"),
    "orders": ("order", "orders", "flip_rate"),
    "abstain": ("answer_passage", "made_up", "abstained"),
}
_TITLES = {
    "length": "Context length",
    "distractors": "Distractors",
    "orders": "Document order",
    "abstain": "Abstention",
}


def _own(result: ExperimentResult, level: int) -> list[object]:
    settings = result.plan.settings
    kind = settings.kind
    if kind == "length":
        return [level]
    if kind == "distractors":
        return [level, settings.distractor_kind]
    if kind == "orders":
        return [level, settings.orders, round(result.flip_rate(), 1)]
    return [
        "given" if level else "removed",
        round(result.rate(level, "made_up"), 1),
        round(result.rate(level, "abstained"), 1),
    ]


def _place(result: ExperimentResult, level: int) -> tuple[object, object]:
    """Return the row's ``total_docs`` and ``position`` (empty where they vary from question to question)."""
    settings = result.plan.settings
    if settings.kind == "length":
        return "", settings.position
    if settings.kind == "distractors":
        return level + 1, ""
    if settings.kind == "orders":
        return settings.documents, ""
    return (settings.documents, settings.position) if level else (settings.documents - 1, "")


def experiment_rows(result: ExperimentResult, label: str) -> list[list[object]]:
    """Return one row per level: the curve's columns (accuracy with its 95% Wilson interval), then the kind's."""
    rows = []
    outcomes = result.outcomes("accuracy")
    for level in result.plan.settings.levels:
        marks = outcomes[level]
        n, hits = len(marks), sum(marks)
        low, high = wilson_interval(hits, n)
        total, position = _place(result, level)
        accuracy = round(100.0 * hits / n, 1) if n else ""
        bounds = [round(100.0 * low, 1), round(100.0 * high, 1)] if n else ["", ""]
        rows.append([label, total, position, accuracy, result.plan.settings.kind, n, *bounds, *_own(result, level)])
    return rows


def _header(result: ExperimentResult, label: str, evidence: LevelEvidence) -> list[str]:
    settings, plan, meta = result.plan.settings, result.plan, result.meta
    where = (
        "bundled NaturalQuestions-Open questions" if plan.source in ("", BUNDLED_SET) else f"questions of {plan.source}"
    )
    lines = [
        f"{_TITLES[settings.kind]} experiment of {label}, measured by `contextlab curve --vary {settings.kind}` on "
        f"the first {len(plan.questions)} usable {where} ({len(plan.skipped)} skipped); seed {settings.seed}.",
        f"endpoint: {meta.get('endpoint', '')}; api: {meta.get('api', '')}; shots: {settings.shots}; "
        f"temperature: {meta.get('temperature', '')}; max_tokens: {meta.get('max_tokens', '')}; "
        f"tokens counted in {plan.counted_in}.",
        "accuracy: % of questions whose answer holds a gold answer (SQuAD-normalised), as Liu et al. score; "
        "accuracy_low/high: 95% Wilson interval; questions: N, the same questions at every level.",
    ]
    if settings.kind == "abstain":
        lines.append(
            "abstained: % of answers that are a refusal (empty, or holding one of these phrases: "
            f"{refusal_phrases_text()}); made_up: % answered with something else."
        )
    if settings.kind == "length":
        lines.append(
            f"context_tokens: the documents' tokens at most (the answer passage at {settings.position}, the rest "
            "passages unrelated to the question); the instruction, examples and question come on top."
        )
    if settings.kind == "orders":
        lines.append(f"flip_rate: % of questions right in some orders and wrong in others: {result.flip_rate():.1f}.")
    lines.append(
        f"paired tests of {evidence.measure} (each level against the first; McNemar's exact p, Holm-corrected):"
    )
    lines += [f"  {line}" for line in evidence.lines()]
    return lines


def experiment_csv(result: ExperimentResult, name: str | None = None, evidence: LevelEvidence | None = None) -> str:
    """Return the experiment as CSV: the header's ``#`` lines, then one row per level."""
    label = safe_line(name or result.model)
    buffer = io.StringIO()
    for line in _header(result, label, evidence or result.evidence()):
        buffer.write(f"# {terminal_safe(line)}\n")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*CURVE_COLUMNS, *EXTRA_COLUMNS[result.plan.settings.kind]])
    writer.writerows(experiment_rows(result, label))
    return buffer.getvalue()


#: The per-question file's columns: one row per question and level.
QUESTION_COLUMNS = ("query_id", "kind", "level", "correct", "abstained", "context_tokens", "prompt_tokens", "answer")


def experiment_questions_csv(result: ExperimentResult) -> str:
    """Return every answer as CSV (``QUESTION_COLUMNS``), question by question, level by level."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(QUESTION_COLUMNS)
    kind = result.plan.settings.kind
    for r in result.rows:
        writer.writerow(
            [
                r.query_id,
                kind,
                r.level,
                int(r.correct),
                int(r.abstained),
                r.context_tokens,
                "" if r.prompt_tokens is None else r.prompt_tokens,
                terminal_safe(r.answer),
            ]
        )
    return buffer.getvalue()


def write_experiment(
    result: ExperimentResult, out: str | Path, name: str | None = None, evidence: LevelEvidence | None = None
) -> Path:
    """Write ``experiment_csv`` to ``out`` and every answer beside it (``outcomes_path``); return ``out``.

    Each file is written whole or not at all, the answers first, so a result on disk always has
    its answers beside it.
    """
    path = Path(out).expanduser()
    if path.is_dir() or not path.parent.is_dir():
        raise InvalidInputError(f"out {str(path)!r}: give a file name in an existing folder", field="out")
    write_text(outcomes_path(path), experiment_questions_csv(result))
    write_text(path, experiment_csv(result, name, evidence))
    return path


def experiment_table(result: ExperimentResult, label: str) -> str:
    """Return the levels as a table to print: accuracy with its interval, N, and the kind's own columns."""
    kind = result.plan.settings.kind
    own = EXTRA_COLUMNS[kind]
    lines = [
        f"{label}: accuracy by level (95% Wilson interval)",
        f"{'level':<26} {'accuracy %':>10} {'interval':>15} {'N':>5}  " + "  ".join(own),
    ]
    for row, level in zip(experiment_rows(result, label), result.plan.settings.levels, strict=True):
        accuracy, n, low, high = row[3], row[5], row[6], row[7]
        extra = "  ".join(str(v) for v in row[len(CURVE_COLUMNS) :])
        lines.append(
            f"{result.plan.settings.label(level):<26} {accuracy!s:>10} {low!s:>6} - {high!s:<6} {n!s:>5}  {extra}"
        )
    return "\n".join(lines)
