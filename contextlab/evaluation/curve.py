"""Your model's position curve: Liu et al.'s multi-document QA experiment, run on any endpoint.

For each bundled NaturalQuestions-Open question the gold passage is put at each chosen position
among K - 1 distractors (the most BM25-similar bundled passages that hold no gold answer, in
that order), and the model also answers closed-book (no documents) and with the gold passage
alone. Documents are listed as the paper lists them (``Document [n](Title: ...) text``) under its
instruction; answers are scored as the paper scores them. The result is written in the format of
the bundled curves (``model,total_docs,position,accuracy,kind`` plus ``questions`` and the 95%
Wilson interval), so ``contextlab eval --curve FILE`` and the lab read it like a published one.
"""

from __future__ import annotations

import csv
import io
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..atomic import write_text
from ..curves.evidence import CurveEvidence, position_effect
from ..curves.outcomes import outcomes_csv, outcomes_path
from ..errors import InvalidInputError
from ..intervals import wilson_interval
from ..models.batch import DEFAULT_CONCURRENCY
from ..models.pace import RunPace, measured_pace
from ..models.prompts import DEFAULT_TEMPLATE, QATemplate, Shot, paper_documents
from ..models.replies import safe_line
from ..models.scoring import answer_is_correct
from ..paired import ALPHA
from ..types import Document
from ..validation import message_value, whole_number
from .curve_sources import CurveQuestion, CurveSkip, curve_question, gold_passage
from .sets import BundledCorpus, EvalQuestion, EvalSet, load_bundled_set

__all__ = [
    "ConditionAccuracy",
    "CurveAnswer",
    "CurveCase",
    "CurvePlan",
    "CurveResult",
    "all_skipped_message",
    "plan_curve",
    "run_curve",
    "curve_csv",
    "write_curve",
    "paired_test_lines",
    "solved_examples",
    "solved_questions",
    "parse_positions",
]


@dataclass(frozen=True)
class CurveCase:
    """One prompt of the experiment: a question under one condition (and its gold's position)."""

    query_id: str
    kind: str  # "closed_book", "oracle" or "position"
    total_docs: int
    position: int | None
    prompt: str


def parse_positions(spec: str | Sequence[int], documents: int) -> list[int]:
    """Return the 1-based gold positions of ``spec`` (``"1,5,10"`` or ints), checked against ``documents``."""
    raw = [p for p in spec.split(",") if p.strip()] if isinstance(spec, str) else list(spec)
    try:
        values = [int(p) for p in raw]
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"positions must be whole numbers such as 1,5,10; got {message_value(spec)}", field="positions"
        ) from None
    if not values or any(not 1 <= p <= documents for p in values):
        raise InvalidInputError(
            f"positions must lie between 1 and documents={documents}; got {message_value(spec)}", field="positions"
        )
    return sorted(dict.fromkeys(values))


def solved_questions(count: int, exclude: set[str]) -> list[tuple[EvalQuestion, Document]]:
    """Return ``count`` questions for solved examples, with their gold passages, none in ``exclude``.

    Taken from the end of the bundled set (so outside any run of its first questions), those
    whose first answer has four words at most.
    """
    whole_number("shots", count, minimum=0)
    bundled = load_bundled_set()
    found: list[tuple[EvalQuestion, Document]] = []
    for question in reversed(bundled.questions):
        if len(found) == count:
            break
        if question.query_id in exclude or not question.answers or len(question.answers[0].split()) > 4:
            continue
        found.append((question, gold_passage(question, BundledCorpus())))
    return found


def solved_examples(count: int, exclude: set[str], *, with_documents: bool = True) -> list[Shot]:
    """Return ``count`` solved examples (``solved_questions``), documents in the paper's format."""
    return [
        Shot(q.query, q.answers[0], paper_documents([doc]) if with_documents else "")
        for q, doc in solved_questions(count, exclude)
    ]


@dataclass
class CurvePlan:
    """Every prompt of a curve run, what it needs to be scored, and the questions left out."""

    documents: int
    positions: list[int]
    shots: int
    questions: list[EvalQuestion]
    cases: list[CurveCase]
    template: QATemplate = DEFAULT_TEMPLATE
    #: The questions skipped (no gold, no answers, too few other documents), each with its reason.
    skipped: list[CurveSkip] = field(default_factory=list)
    #: The set the questions come from (the bundled set's name, or the user's file).
    source: str = ""

    @property
    def prompts(self) -> list[str]:
        """Return the prompt of every case, in case order."""
        return [c.prompt for c in self.cases]

    def first(self, count: int) -> CurvePlan:
        """Return the plan of its first ``count`` questions (the same prompts: a look at part of the run)."""
        kept = self.questions[:count]
        ids = {q.query_id for q in kept}
        return CurvePlan(
            self.documents,
            self.positions,
            self.shots,
            kept,
            [c for c in self.cases if c.query_id in ids],
            self.template,
            self.skipped,
            self.source,
        )

    def sending_order(self) -> list[str]:
        """Return the distinct prompts in the order to send them: those sharing a prefix together.

        Every prompt with documents opens with the same instruction and solved examples, the
        closed-book ones with another: sent in two runs, a server that keeps each slot's last
        prompt (llama.cpp's prompt cache) processes each shared prefix once per slot, not once
        per switch between the two.
        """
        with_docs = [c.prompt for c in self.cases if c.kind != "closed_book"]
        closed = [c.prompt for c in self.cases if c.kind == "closed_book"]
        return list(dict.fromkeys(with_docs + closed))

    def skipped_note(self) -> str | None:
        """Return one line counting the questions skipped and the first reason, or None when none was."""
        if not self.skipped:
            return None
        first = self.skipped[0]
        return (
            f"{len(self.skipped)} question(s) of {self.source or 'the set'} skipped (first: {first.query_id}: "
            f"{first.reason}); {len(self.questions)} measured"
        )


def plan_curve(
    evalset: EvalSet | None = None,
    *,
    documents: int = 10,
    positions: str | Sequence[int] = (1, 5, 10),
    limit: int = 100,
    shots: int = 0,
    template: QATemplate = DEFAULT_TEMPLATE,
    closed_book: bool = True,
    oracle: bool = True,
) -> CurvePlan:
    """Return the prompts of the experiment on the first ``limit`` usable questions of ``evalset``.

    ``evalset`` None is the bundled NaturalQuestions-Open set; a user's set (``load_eval_set``)
    brings its own documents or a store (see ``curve_sources``). Per question: closed-book, gold
    only (``oracle``), and the gold at each of ``positions`` among ``documents`` documents, the
    same questions at every position (what makes the tests paired). Questions without a gold
    document, answers, or ``documents - 1`` other documents are skipped and kept in
    ``skipped``. ``shots`` solved examples (bundled questions outside the run) open every
    prompt; base models need them to answer in the format asked.
    """
    whole_number("documents", documents, minimum=2, maximum=30)
    whole_number("limit", limit, minimum=1)
    places = parse_positions(positions, documents)
    evalset = evalset if evalset is not None else load_bundled_set()
    kept: list[CurveQuestion] = []
    skipped: list[CurveSkip] = []
    for question in evalset.questions:
        if len(kept) == limit:
            break
        found = curve_question(question, evalset, documents)
        if isinstance(found, CurveSkip):
            skipped.append(found)
        else:
            kept.append(found)
    if not kept:
        raise InvalidInputError(all_skipped_message(skipped, documents), field="documents")
    scanned = {c.query_id for c in skipped} | {c.question.query_id for c in kept}
    with_docs = solved_examples(shots, scanned)
    without_docs = [Shot(s.question, s.answer) for s in with_docs]
    cases: list[CurveCase] = []
    for item in kept:
        q, gold, others = item.question, item.gold, list(item.others)
        if closed_book:
            cases.append(CurveCase(q.query_id, "closed_book", 0, None, template.render(q.query, "", without_docs)))
        if oracle:
            cases.append(
                CurveCase(q.query_id, "oracle", 1, 1, template.render(q.query, paper_documents([gold]), with_docs))
            )
        for p in places:
            docs = [*others[: p - 1], gold, *others[p - 1 :]]
            cases.append(
                CurveCase(
                    q.query_id, "position", documents, p, template.render(q.query, paper_documents(docs), with_docs)
                )
            )
    return CurvePlan(documents, places, shots, [c.question for c in kept], cases, template, skipped, evalset.name)


def all_skipped_message(skipped: Sequence[CurveSkip], documents: int) -> str:
    """Return the one line saying why every question was skipped and how many there were.

    When too few other documents is the only reason, it says how many each question has and
    how many ``documents`` needs; otherwise it counts each reason, the most common first.
    """
    head = "the only question skipped" if len(skipped) == 1 else f"all {len(skipped)} questions skipped"
    have = [s.others for s in skipped]
    if all(n is not None for n in have):
        counts = sorted({n for n in have if n is not None})
        each = f"each has {counts[0]}" if len(counts) == 1 else f"each has at most {counts[-1]}"
        return (
            f"{head}: {each} other documents without an answer, documents={documents} needs {documents - 1}; "
            "lower it or give each question more documents"
        )
    reasons = Counter(s.reason for s in skipped)
    listed = "; ".join(f"{count} {reason}" for reason, count in reasons.most_common(3))
    return f"{head}: {listed}"


@dataclass(frozen=True)
class CurveAnswer:
    """One case answered: the question and condition, the model's answer line, whether it holds a gold answer."""

    query_id: str
    kind: str  # "closed_book", "oracle" or "position"
    total_docs: int
    position: int | None
    answer: str
    correct: bool
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class ConditionAccuracy:
    """The accuracy under one condition: % of its questions answered right, with the 95% Wilson interval."""

    kind: str
    total_docs: int
    position: int | None
    questions: int
    correct: int
    accuracy: float
    accuracy_low: float
    accuracy_high: float


@dataclass
class CurveResult:
    """Every case's answer and score, and the accuracy per condition (percent, with intervals)."""

    plan: CurvePlan
    model: str
    rows: list[CurveAnswer]
    meta: Mapping[str, object] = field(default_factory=dict)
    #: Lines to show the user about the answers (how many were cut).
    notes: list[str] = field(default_factory=list)
    #: How fast the calls of this run were answered (None for rows made without a model).
    pace: RunPace | None = None

    def points(self) -> list[ConditionAccuracy]:
        """Return the accuracy under each condition: positions first, then closed book, then gold only."""
        groups: dict[tuple[str, int, int | None], list[bool]] = {}
        for row in self.rows:
            groups.setdefault((row.kind, row.total_docs, row.position), []).append(row.correct)
        order = {"position": 0, "closed_book": 1, "oracle": 2}
        out = []
        for (kind, total, position), marks in sorted(groups.items(), key=lambda g: (order[g[0][0]], g[0][2] or 0)):
            low, high = wilson_interval(sum(marks), len(marks))
            out.append(
                ConditionAccuracy(
                    kind,
                    total,
                    position,
                    len(marks),
                    sum(marks),
                    round(100.0 * sum(marks) / len(marks), 1),
                    round(100.0 * low, 1),
                    round(100.0 * high, 1),
                )
            )
        return out

    def outcomes(self) -> dict[int, list[bool]]:
        """Return ``{position: yes/no per question}``, the questions in the plan's order at every position."""
        marks = {(r.query_id, r.position): r.correct for r in self.rows if r.kind == "position"}
        return {p: [marks[(q.query_id, p)] for q in self.plan.questions] for p in self.plan.positions}

    def evidence(self, alpha: float = ALPHA) -> CurveEvidence:
        """Return what the curve shows (``curves.evidence``): paired tests on its per-question outcomes."""
        return position_effect(outcomes=self.outcomes(), total_docs=self.plan.documents, label=self.model, alpha=alpha)


def run_curve(
    plan: CurvePlan, client: Any, *, cache: Any = None, concurrency: int = DEFAULT_CONCURRENCY, progress: Any = None
) -> CurveResult:
    """Return the answers of ``client`` (a ``ModelClient``) to every case of ``plan``, scored."""
    from ..models.batch import answer_notes, answer_prompts

    order = plan.sending_order()
    started = time.monotonic()
    sent = answer_prompts(client, order, cache=cache, concurrency=concurrency, progress=progress)
    pace = measured_pace(sent, time.monotonic() - started, concurrency)
    replies = dict(zip(order, sent, strict=False))
    answers = [replies[c.prompt] for c in plan.cases]
    gold = {q.query_id: q.answers for q in plan.questions}
    rows = [
        CurveAnswer(
            case.query_id,
            case.kind,
            case.total_docs,
            case.position,
            reply.answer,
            answer_is_correct(reply.answer, gold[case.query_id]),
            reply.latency_ms,
            reply.prompt_tokens,
            reply.completion_tokens,
        )
        for case, reply in zip(plan.cases, answers, strict=False)
    ]
    model = (client.served_model if any(not a.cached for a in answers) else None) or client.model or "model"
    return CurveResult(
        plan,
        safe_line(model),
        rows,
        meta={**client.describe(), "shots": plan.shots},
        notes=answer_notes(answers, client),
        pace=pace,
    )


def paired_test_lines(evidence: CurveEvidence) -> list[str]:
    """Return what a run's paired tests say: the claims earned, each difference, and Cochran's Q in words."""
    lines = [*evidence.claims, *(d.sentence() for d in evidence.differences)]
    if evidence.no_effect is not None and len(evidence.points) > 2:
        q, df, p = evidence.no_effect
        verdict = (
            "the positions do not share one accuracy"
            if p < evidence.alpha
            else "no position effect at all cannot be ruled out"
        )
        shown = "p < 0.001" if p < 0.001 else f"p = {p:.2g}"
        lines.append(f"Cochran's Q = {q:.1f} ({df} df), {shown} (permutation test): {verdict}")
    return lines


def _source_words(plan: CurvePlan) -> str:
    from .sets import BUNDLED_SET

    where = (
        "bundled NaturalQuestions-Open questions"
        if plan.source in ("", BUNDLED_SET)
        else f"usable questions of {plan.source}"
    )
    skipped = f" ({len(plan.skipped)} skipped: too few documents, no gold or no answers)" if plan.skipped else ""
    return f"the first {len(plan.questions)} {where}{skipped}"


def curve_csv(result: CurveResult, name: str | None = None, evidence: CurveEvidence | None = None) -> str:
    """Return the curve as CSV in the bundled curves' format, with N and the intervals per row.

    The label (``name``, else the model id the server gave) is made one safe line first, so the
    file's comment cannot break into lines that ``--curve`` would then refuse. The paired tests
    (``evidence``, default ``result.evidence()``) are written as ``#`` lines: read by people,
    ignored by every curve reader.
    """
    label = safe_line(name or result.model)
    buffer = io.StringIO()
    meta = result.meta
    buffer.write(f"# Position curve of {label}, measured by `contextlab curve` on {_source_words(result.plan)}.\n")
    buffer.write(
        f"# endpoint: {meta.get('endpoint', '')}; api: {meta.get('api', '')}; shots: {result.plan.shots}; "
        f"temperature: {meta.get('temperature', '')}; max_tokens: {meta.get('max_tokens', '')}.\n"
    )
    buffer.write(
        "# accuracy: % of questions whose answer holds a gold answer (SQuAD-normalised), as Liu et al. "
        "score; accuracy_low/high: 95% Wilson interval; questions: N.\n"
    )
    buffer.write("# paired tests (the same questions at every position; McNemar's exact p, Holm-corrected):\n")
    for line in paired_test_lines(evidence or result.evidence()):
        buffer.write(f"#   {line}\n")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        ["model", "total_docs", "position", "accuracy", "kind", "questions", "accuracy_low", "accuracy_high"]
    )
    for p in result.points():
        position = "" if p.kind != "position" else p.position
        total = p.total_docs if p.kind == "position" else ""
        writer.writerow([label, total, position, p.accuracy, p.kind, p.questions, p.accuracy_low, p.accuracy_high])
    return buffer.getvalue()


def write_curve(
    result: CurveResult, out: str | Path, name: str | None = None, evidence: CurveEvidence | None = None
) -> Path:
    """Write ``curve_csv`` to ``out`` and the per-question outcomes beside it (``outcomes_path``); return ``out``.

    Each file is written whole or not at all (``contextlab.atomic``), the outcomes first, so a
    curve file on disk always has its outcomes beside it.
    """
    path = Path(out).expanduser()
    if path.is_dir() or not path.parent.is_dir():
        raise InvalidInputError(f"out {str(path)!r}: give a file name in an existing folder", field="out")
    write_text(outcomes_path(path), outcomes_csv(result.rows))
    write_text(path, curve_csv(result, name, evidence))
    return path
