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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..atomic import write_text
from ..errors import InvalidInputError
from ..intervals import wilson_interval
from ..models.prompts import DEFAULT_TEMPLATE, QATemplate, Shot, paper_documents
from ..models.replies import safe_line
from ..models.scoring import answer_is_correct, normalize_answer
from ..types import Document
from ..validation import whole_number
from .sets import BundledCorpus, EvalQuestion, load_bundled_set

__all__ = ["CurveCase", "CurvePlan", "CurveResult", "plan_curve", "run_curve", "curve_csv", "write_curve",
           "solved_examples", "solved_questions", "parse_positions"]

# Distractors are looked for among this many BM25 hits beyond K - 1 (some hold an answer).
_SEARCH_MARGIN = 15


@dataclass(frozen=True)
class CurveCase:
    """One prompt of the experiment: a question under one condition (and its gold's position)."""

    query_id: str
    kind: str                 # "closed_book", "oracle" or "position"
    total_docs: int
    position: int | None
    prompt: str


def parse_positions(spec: str | Sequence[int], documents: int) -> list[int]:
    """Return the 1-based gold positions of ``spec`` (``"1,5,10"`` or ints), checked against ``documents``."""
    raw = [p for p in spec.split(",") if p.strip()] if isinstance(spec, str) else list(spec)
    try:
        values = [int(p) for p in raw]
    except (TypeError, ValueError):
        raise InvalidInputError(f"positions must be whole numbers such as 1,5,10; got {spec!r}",
                                field="positions") from None
    if not values or any(not 1 <= p <= documents for p in values):
        raise InvalidInputError(f"positions must lie between 1 and documents={documents}; got {spec!r}",
                                field="positions")
    return sorted(dict.fromkeys(values))


def _gold_passage(question: EvalQuestion, corpus: BundledCorpus) -> Document:
    from .sets import _bundled_index, bundled_set_path

    _, passages = _bundled_index(corpus.path or str(bundled_set_path()))
    gold_id = next(iter(question.gold_ids))
    title, text = passages[gold_id]
    return Document(content=text, source=title, metadata={"id": gold_id})


def _distractors(question: EvalQuestion, corpus: BundledCorpus, count: int) -> list[Document]:
    """Return the ``count`` most BM25-similar passages that are not gold and hold no gold answer."""
    answers = [a for a in (normalize_answer(x) for x in question.answers) if a]
    found: list[Document] = []
    for doc in corpus.retrieve(question.query, count + _SEARCH_MARGIN):
        if str(doc.metadata.get("id")) in question.gold_ids:
            continue
        said = normalize_answer(f"{doc.source or ''} {doc.content}")
        if any(a in said for a in answers):
            continue
        found.append(doc)
        if len(found) == count:
            return found
    raise InvalidInputError(f"question {question.query_id} has only {len(found)} distractors without an answer; "
                            f"use fewer documents", field="documents")


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
        found.append((question, _gold_passage(question, bundled.retriever)))
    return found


def solved_examples(count: int, exclude: set[str], *, with_documents: bool = True) -> list[Shot]:
    """Return ``count`` solved examples (``solved_questions``), documents in the paper's format."""
    return [Shot(q.query, q.answers[0], paper_documents([doc]) if with_documents else "")
            for q, doc in solved_questions(count, exclude)]


@dataclass
class CurvePlan:
    """Every prompt of a curve run, and what it needs to be scored."""

    documents: int
    positions: list[int]
    shots: int
    questions: list[EvalQuestion]
    cases: list[CurveCase]
    template: QATemplate = DEFAULT_TEMPLATE

    @property
    def prompts(self) -> list[str]:
        """Return the prompt of every case, in case order."""
        return [c.prompt for c in self.cases]


def plan_curve(*, documents: int = 10, positions: str | Sequence[int] = (1, 5, 10), limit: int = 100,
               shots: int = 0, template: QATemplate = DEFAULT_TEMPLATE, closed_book: bool = True,
               oracle: bool = True) -> CurvePlan:
    """Return the prompts of the experiment on the first ``limit`` bundled questions.

    Per question: closed-book, gold only (``oracle``), and the gold at each of ``positions``
    among ``documents`` passages. ``shots`` solved examples (from questions outside the run)
    open every prompt; base models need them to answer in the format asked.
    """
    whole_number("documents", documents, minimum=2, maximum=30)
    whole_number("limit", limit, minimum=1)
    places = parse_positions(positions, documents)
    bundled = load_bundled_set()
    questions = bundled.questions[:limit]
    corpus = bundled.retriever
    run_ids = {q.query_id for q in questions}
    with_docs = solved_examples(shots, run_ids)
    without_docs = [Shot(s.question, s.answer) for s in with_docs]
    cases: list[CurveCase] = []
    for q in questions:
        gold = _gold_passage(q, corpus)
        if closed_book:
            cases.append(CurveCase(q.query_id, "closed_book", 0, None, template.render(q.query, "", without_docs)))
        if oracle:
            cases.append(CurveCase(q.query_id, "oracle", 1, 1, template.render(q.query, paper_documents([gold]),
                                                                                 with_docs)))
        others = _distractors(q, corpus, documents - 1)
        for p in places:
            docs = [*others[:p - 1], gold, *others[p - 1:]]
            cases.append(CurveCase(q.query_id, "position", documents, p,
                                   template.render(q.query, paper_documents(docs), with_docs)))
    return CurvePlan(documents, places, shots, list(questions), cases, template)


@dataclass
class CurveResult:
    """Every case's answer and score, and the accuracy per condition (percent, with intervals)."""

    plan: CurvePlan
    model: str
    rows: list[dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)
    #: Lines to show the user about the answers (how many were cut).
    notes: list[str] = field(default_factory=list)

    def points(self) -> list[dict[str, Any]]:
        """Return one accuracy row per condition: kind, total_docs, position, accuracy %, N, interval."""
        groups: dict[tuple[str, int, int | None], list[bool]] = {}
        for row in self.rows:
            groups.setdefault((row["kind"], row["total_docs"], row["position"]), []).append(row["correct"])
        order = {"position": 0, "closed_book": 1, "oracle": 2}
        out = []
        for (kind, total, position), marks in sorted(groups.items(), key=lambda g: (order[g[0][0]], g[0][2] or 0)):
            low, high = wilson_interval(sum(marks), len(marks))
            out.append({"kind": kind, "total_docs": total, "position": position, "questions": len(marks),
                        "correct": sum(marks), "accuracy": round(100.0 * sum(marks) / len(marks), 1),
                        "accuracy_low": round(100.0 * low, 1), "accuracy_high": round(100.0 * high, 1)})
        return out


def run_curve(plan: CurvePlan, client: Any, *, cache: Any = None, concurrency: int = 4,
              progress: Any = None) -> CurveResult:
    """Return the answers of ``client`` (a ``ModelClient``) to every case of ``plan``, scored."""
    from ..models.batch import answer_notes, answer_prompts

    answers = answer_prompts(client, plan.prompts, cache=cache, concurrency=concurrency, progress=progress)
    gold = {q.query_id: q.answers for q in plan.questions}
    rows = []
    for case, reply in zip(plan.cases, answers):
        rows.append({"query_id": case.query_id, "kind": case.kind, "total_docs": case.total_docs,
                     "position": case.position, "answer": reply.answer,
                     "correct": answer_is_correct(reply.answer, gold[case.query_id]),
                     "latency_ms": reply.latency_ms, "prompt_tokens": reply.prompt_tokens,
                     "completion_tokens": reply.completion_tokens})
    model = (client.served_model if any(not a.cached for a in answers) else None) or client.model or "model"
    return CurveResult(plan, safe_line(model), rows, meta={**client.describe(), "shots": plan.shots},
                       notes=answer_notes(answers, client))


def curve_csv(result: CurveResult, name: str | None = None) -> str:
    """Return the curve as CSV in the bundled curves' format, with N and the intervals per row.

    The label (``name``, else the model id the server gave) is made one safe line first, so the
    file's comment cannot break into lines that ``--curve`` would then refuse.
    """
    label = safe_line(name or result.model)
    buffer = io.StringIO()
    meta = result.meta
    buffer.write(f"# Position curve of {label}, measured by `contextlab curve` on the first "
                 f"{len(result.plan.questions)} bundled NaturalQuestions-Open questions.\n")
    buffer.write(f"# endpoint: {meta.get('endpoint', '')}; api: {meta.get('api', '')}; shots: {result.plan.shots}; "
                 f"temperature: {meta.get('temperature', '')}; max_tokens: {meta.get('max_tokens', '')}.\n")
    buffer.write("# accuracy: % of questions whose answer holds a gold answer (SQuAD-normalised), as Liu et al. "
                 "score; accuracy_low/high: 95% Wilson interval; questions: N.\n")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["model", "total_docs", "position", "accuracy", "kind", "questions", "accuracy_low",
                     "accuracy_high"])
    for p in result.points():
        position = "" if p["kind"] != "position" else p["position"]
        total = p["total_docs"] if p["kind"] == "position" else ""
        writer.writerow([label, total, position, p["accuracy"], p["kind"], p["questions"], p["accuracy_low"],
                         p["accuracy_high"]])
    return buffer.getvalue()


def write_curve(result: CurveResult, out: str | Path, name: str | None = None) -> Path:
    """Write ``curve_csv`` to ``out`` whole or not at all (``contextlab.atomic``); return the path."""
    path = Path(out).expanduser()
    if path.is_dir() or not path.parent.is_dir():
        raise InvalidInputError(f"out {str(path)!r}: give a file name in an existing folder", field="out")
    write_text(path, curve_csv(result, name))
    return path
