"""Seed 002's hybrid document ranking: relevance, recency and importance in one score.

``HybridRanking`` is the seed's ``0.5 * relevance + 0.25 * recency + 0.25 * importance`` with
recency halving every ``half_life_hours``. ``assemble_prompt`` (contextlab.window) ranks the
documents section with it; it is usable on its own too.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InvalidInputError
from ..types import Document, document_list
from ..validation import finite_number

__all__ = ["HybridRanking", "check_documents", "check_now", "HYBRID_SCORE_LABEL"]

#: What the hybrid score is called wherever it is shown (document headers, tables).
HYBRID_SCORE_LABEL = "hybrid score"


def check_now(now: Any) -> float:
    """Return ``now`` (Unix seconds) as a float, or raise ``InvalidInputError``."""
    return finite_number("now", now)


def check_documents(documents: Any) -> list[Document]:
    """Return ``documents`` as a list of ``Document`` (None is no documents), checked field by field."""
    if documents is None:
        return []
    if isinstance(documents, (str, bytes, Document)):
        raise InvalidInputError(f"documents must be a list of Document; got a single {type(documents).__name__}")
    return list(document_list(list(documents)))


@dataclass(frozen=True)
class HybridRanking:
    """Seed 002's document score: ``relevance * r + recency * t + importance * i``.

    ``recency = 0.5 ** (age_hours / half_life_hours)``: 1 for a document stamped now, 0.5 one
    half-life ago. A timestamp in the future counts as now. A document WITHOUT a timestamp gets
    recency 0: an undated document cannot show that it is fresh, and a neutral 0.5 would rank
    it above a document dated exactly one half-life ago — rewarding missing metadata.
    Relevance is the document's ``score``, importance its ``importance``.
    """

    relevance: float = 0.5
    recency: float = 0.25
    importance: float = 0.25
    half_life_hours: float = 24.0

    def __post_init__(self) -> None:
        for name in ("relevance", "recency", "importance"):
            finite_number(f"HybridRanking.{name}", getattr(self, name), minimum=0)
        if self.relevance + self.recency + self.importance <= 0:
            raise InvalidInputError(
                "HybridRanking weights are all 0; give at least one of relevance, recency, "
                "importance a positive weight (1/0/0 is pure relevance)"
            )
        if finite_number("HybridRanking.half_life_hours", self.half_life_hours) <= 0:
            raise InvalidInputError(
                f"HybridRanking.half_life_hours must be > 0 (hours for recency to halve); got {self.half_life_hours!r}"
            )

    def recency_of(self, document: Document, now: float | None = None) -> float:
        """Return the document's recency in [0, 1]; 0 when it has no timestamp."""
        if document.timestamp is None:
            return 0.0
        now = time.time() if now is None else now
        age_hours = max(now - document.timestamp, 0.0) / 3600.0
        return float(0.5 ** (age_hours / self.half_life_hours))

    def components(self, document: Document, now: float | None = None) -> dict[str, float]:
        """Return the score's parts: relevance, recency, importance and the hybrid score."""
        recency = self.recency_of(document, now)
        score = self.relevance * document.score + self.recency * recency + self.importance * document.importance
        return {
            "relevance": document.score,
            "recency": recency,
            "importance": document.importance,
            "score": score,
        }

    def score(self, document: Document, now: float | None = None) -> float:
        """Return the document's hybrid score."""
        return self.components(document, now)["score"]

    def rescore(self, documents: Sequence[Document], now: float | None = None) -> list[Document]:
        """Return copies of ``documents`` in input order whose ``score`` is the hybrid score.

        Each copy's ``metadata["hybrid"]`` holds the parts (``relevance`` is the original score).
        The input documents are not changed.
        """
        docs = check_documents(documents)
        now = time.time() if now is None else check_now(now)
        out = []
        for doc in docs:
            parts = self.components(doc, now)
            out.append(replace(doc, score=parts["score"], metadata={**doc.metadata, "hybrid": parts}))
        return out

    def rank(self, documents: Sequence[Document], now: float | None = None) -> list[Document]:
        """Return hybrid-scored copies of ``documents``, best first (ties keep input order)."""
        return sorted(self.rescore(documents, now), key=lambda d: d.score, reverse=True)
