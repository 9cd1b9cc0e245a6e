"""Where a position curve's documents come from: each question's gold document and the others around it.

Three sources, one shape (``CurveQuestion``: the question, its gold document, the other
documents in the order they are placed around it):

- the bundled NaturalQuestions-Open set: the gold passage, and the most BM25-similar bundled
  passages that are not gold and hold no gold answer (Liu et al.'s distractors);
- your own set with documents (eval's JSONL: ``query``, ``documents``, ``gold_sources``,
  ``answers``): its first gold document, and its other documents that hold no answer, in the
  file's order;
- your own set with a store (``--store``): the gold from the question's documents or the store,
  and the store's nearest passages that are not gold and hold no answer.

A question that has no gold document, no answers to score by, or fewer other documents than a
prompt needs is skipped, and the reason is kept (``CurveSkip``) so the run can count it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models.scoring import normalize_answer
from ..types import Document
from .sets import BundledCorpus, EvalQuestion, EvalSet, StoreRetriever

__all__ = ["CurveQuestion", "CurveSkip", "curve_question", "gold_passage"]

# Other documents are looked for among this many retrieved passages beyond K - 1 (some hold an answer).
_SEARCH_MARGIN = 15


@dataclass(frozen=True)
class CurveQuestion:
    """A question ready for the experiment: its gold document and ``others`` (at least K - 1)."""

    question: EvalQuestion
    gold: Document
    others: tuple[Document, ...]


@dataclass(frozen=True)
class CurveSkip:
    """A question left out of the experiment, and why (one line)."""

    query_id: str
    reason: str
    #: How many other documents without an answer it has, when too few of them is the reason.
    others: int | None = None


def gold_passage(question: EvalQuestion, corpus: BundledCorpus) -> Document:
    """Return the bundled question's gold passage (title as source, its id in metadata)."""
    from .sets import _bundled_index, bundled_set_path

    _, passages = _bundled_index(corpus.path or str(bundled_set_path()))
    gold_id = next(iter(question.gold_ids))
    title, text = passages[gold_id]
    return Document(content=text, source=title, metadata={"id": gold_id})


def _holds_answer(doc: Document, answers: list[str]) -> bool:
    said = normalize_answer(f"{doc.source or ''} {doc.content}")
    return any(a in said for a in answers)


def _others(question: EvalQuestion, candidates: list[Document], gold: Document, count: int) -> list[Document]:
    """Return up to ``count`` of ``candidates`` that are neither the gold nor hold a gold answer, in order."""
    answers = [a for a in (normalize_answer(x) for x in question.answers) if a]
    gold_id = str(gold.metadata.get("id", ""))
    found: list[Document] = []
    for doc in candidates:
        if question.is_gold(doc) or (gold_id and str(doc.metadata.get("id", "")) == gold_id) or doc is gold:
            continue
        if _holds_answer(doc, answers):
            continue
        found.append(doc)
        if len(found) == count:
            break
    return found


def _gold_in(question: EvalQuestion, documents: tuple[Document, ...] | list[Document]) -> Document | None:
    """Return the question's first gold document: named gold, else (nothing named) one holding an answer."""
    if question.has_gold:
        return next((d for d in documents if question.is_gold(d)), None)
    answers = [a for a in (normalize_answer(x) for x in question.answers) if a]
    return next((d for d in documents if _holds_answer(d, answers)), None)


def _store_gold(question: EvalQuestion, retriever: StoreRetriever, count: int) -> Document | None:
    from .sets import _open_store

    backend = _open_store(retriever.path)
    for name in sorted(question.gold_ids | question.gold_sources):
        doc = backend.get(name)
        if doc is not None:
            return Document(content=doc.content, source=doc.source, metadata={**doc.metadata, "id": name})
    return _gold_in(question, retriever.retrieve(question.query, count + _SEARCH_MARGIN))


def curve_question(question: EvalQuestion, evalset: EvalSet, documents: int) -> CurveQuestion | CurveSkip:
    """Return ``question`` with its gold and ``documents - 1`` others, or the ``CurveSkip`` saying why not."""
    need = documents - 1
    if not question.answers:
        return CurveSkip(question.query_id, 'no "answers" to score the model\'s answer by')
    retriever = evalset.retriever
    if isinstance(retriever, BundledCorpus):
        gold: Document | None = gold_passage(question, retriever)
    elif question.documents is not None:
        gold = _gold_in(question, question.documents)
    else:
        gold = _store_gold(question, retriever, need) if isinstance(retriever, StoreRetriever) else None
    if gold is None:
        return CurveSkip(question.query_id, 'no gold document (name it in "gold_sources")')
    if question.documents is not None and not isinstance(retriever, BundledCorpus):
        candidates = list(question.documents)
    elif retriever is not None:
        candidates = retriever.retrieve(question.query, need + _SEARCH_MARGIN)
    else:
        candidates = []
    others = _others(question, candidates, gold, need)
    if len(others) < need:
        return CurveSkip(
            question.query_id, f"only {len(others)} other documents without an answer, {need} needed", len(others)
        )
    return CurveQuestion(question, gold, tuple(others))
