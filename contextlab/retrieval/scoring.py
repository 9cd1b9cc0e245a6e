"""Score documents that came without a score, by BM25 against the query (normalised to [0, 1]).

A score the input gave (from the user's retriever) is never overwritten: only documents the
loader marked ``metadata["score_missing"]`` are scored. The scores come from a private in-memory
``SQLiteBackend`` holding the whole set, so a document scores what it would score in a store of
its own set. BM25 scores and a retriever's scores are on different scales; ``ScoringOutcome.note``
says so whenever both kinds end up side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..errors import InvalidInputError
from ..types import Document
from ..validation import text
from .store import SQLiteBackend
from .terms import query_terms

__all__ = ["ScoringOutcome", "needs_scoring", "score_documents", "score_unscored"]

_MISSING = "score_missing"


@dataclass(frozen=True)
class ScoringOutcome:
    """Documents after scoring: how many were given a BM25 score, and what to tell the user."""

    documents: list[Document]
    scored: int
    #: What the search left out of a long query (``SearchOutcome.note``), or None.
    query_note: str | None = None

    @property
    def note(self) -> str | None:
        """Return one sentence on what was scored (None when nothing was)."""
        total = len(self.documents)
        if not self.scored:
            return None
        if self.scored == total:
            note = f"{self.scored} document(s) had no score and were scored against the query (BM25, 0-1)"
        else:
            note = (
                f"{self.scored} of {total} documents had no score and were scored against the "
                f"query (BM25, 0-1); the other {total - self.scored} keep the scores they came "
                "with, which are on the retriever's scale, not BM25's, so the two kinds do not "
                "compare directly"
            )
        return f"{note}; {self.query_note}" if self.query_note else note


def needs_scoring(documents: Iterable[Document]) -> bool:
    """Return True when any document came without a score (``metadata["score_missing"]``)."""
    return any(bool(d.metadata.get(_MISSING)) for d in documents)


def score_unscored(documents: Sequence[Document], query: str) -> ScoringOutcome:
    """Return the documents with a BM25 score for each one that had none, and how many that was.

    Every given score is kept as it is. Order is kept and the input is not mutated. A scored
    copy has ``metadata["score_source"] = "bm25"`` and loses the ``score_missing`` mark.
    """
    missing = [i for i, d in enumerate(documents) if d.metadata.get(_MISSING)]
    scored, query_note = _score(documents, query, set(missing))
    return ScoringOutcome(scored, len(missing), query_note)


def score_documents(documents: Sequence[Document], query: str, *, only_missing: bool = True) -> list[Document]:
    """Return copies of ``documents`` with BM25 scores against ``query`` (normalised to [0, 1]).

    By default only documents without a score (``metadata["score_missing"]``) are scored and
    every given score is kept. ``only_missing=False`` re-scores them all, keeping a given score
    in ``metadata["input_score"]``. A document that matches no query word scores 0.0.
    """
    if only_missing:
        return score_unscored(documents, query).documents
    return _score(documents, query, set(range(len(documents))))[0]


def _score(documents: Sequence[Document], query: str, targets: set[int]) -> tuple[list[Document], str | None]:
    text("query", query)
    docs = list(documents)
    for i, doc in enumerate(docs):
        if not isinstance(doc, Document) or not isinstance(doc.content, str):
            raise InvalidInputError(f"document {i}: expected a Document with text content")
    if not targets:
        return docs, None
    if not query_terms(query):
        raise InvalidInputError(
            "cannot score documents: the query has no words; type a query, or give the documents scores"
        )
    scores, query_note = _bm25(docs, query)
    out = []
    for i, doc in enumerate(docs):
        if i not in targets:
            out.append(doc)
            continue
        meta = {k: v for k, v in doc.metadata.items() if k != _MISSING}
        if not doc.metadata.get(_MISSING):
            meta.setdefault("input_score", doc.score)
        meta["score_source"] = "bm25"
        out.append(replace(doc, score=round(scores.get(str(i), 0.0), 6), metadata=meta))
    return out, query_note


def _bm25(docs: list[Document], query: str) -> tuple[dict[str, float], str | None]:
    """Return each document's store score for ``query`` by its index as text, and the search's note."""
    scores: dict[str, float] = {}
    note = None
    with SQLiteBackend() as store:
        store._publishes = False  # a private scratch index: nothing for subscribers to see
        indexed = [(str(i), d) for i, d in enumerate(docs) if d.content.strip()]
        if indexed:
            store.add([d for _, d in indexed], ids=[i for i, _ in indexed])
            outcome = store.search(query, top_k=len(indexed))
            note = outcome.note
            for hit in outcome.results:
                scores[hit.id or ""] = hit.score
    return scores, note
