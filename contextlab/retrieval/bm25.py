"""BM25 ranking over the store's FTS5 index, with a [0, 1] score that follows the ranking.

How results are ordered
-----------------------
By FTS5's own ``bm25()`` (k1 = 1.2, b = 0.75), best first; equal BM25 in the order the
documents were stored. The raw value (``-bm25()``, higher is better) is kept in
``RetrievalResult.metadata["bm25"]``. FTS5 computes, for a query term ``t`` and a document ``d``::

    bm25(d) = sum(idf(t) * s(t, d))
    idf(t)  = ln((N - n + 0.5) / (n + 0.5)), at least 1e-6   (N documents, n holding t)
    s(t, d) = tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen))

How scores are normalised to [0, 1]
-----------------------------------
``s`` is always below ``k1 + 1`` (it nears it as a word repeats without end), so no document
can reach ``sum(idf(t) * (k1 + 1))``. The score is the share of that ceiling a document
reaches::

    score(d) = bm25(d) / sum(idf(t) * (k1 + 1))

over the query terms found in the store. Every result of one query shares the ceiling, so
the score falls exactly as the order does (``min_score`` cuts the list at one place), and it
never reaches 1.0. A document holding every query word once, at average length, scores
1 / 2.2 = 0.4545; one holding words that carry half the IDF, about half that. Words no stored
document holds ("how", a typo) are left out of the ceiling: nothing could reach them.

An earlier score capped each word's part at 1 and ranked by it, so many short documents each
naming every word once tied at 1.0 above a longer page with a higher BM25.
"""

from __future__ import annotations

import math
import sqlite3

__all__ = ["K1", "rank", "document_counts", "informative_terms"]

#: FTS5's bm25() k1 (fts5_aux.c); its b is 0.75.
K1 = 1.2
# FTS5's bm25() floor for the IDF of a term in over half the rows (fts5_aux.c).
_IDF_FLOOR = 1e-6


def document_counts(conn: sqlite3.Connection, terms: list[str]) -> tuple[int, dict[str, int]]:
    """Return the number of stored documents and, per term, how many hold it."""
    n_rows = conn.execute("SELECT count(*) FROM documents_fts").fetchone()[0]
    hits = {
        term: conn.execute("SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?", (f'"{term}"',)).fetchone()[
            0
        ]
        for term in terms
    }
    return n_rows, hits


def informative_terms(terms: list[str], hits: dict[str, int], limit: int) -> list[str]:
    """Return the terms to search, in query order: all when within ``limit``, else the most informative.

    Over ``limit``, the words no stored document holds go first (nothing can match them), then
    the most common ones: the ``limit`` held by the fewest documents (the highest IDF) are kept,
    ties by their place in the query.
    """
    if len(terms) <= limit:
        return terms
    found = [t for t in terms if hits.get(t)]
    if len(found) <= limit:
        return found
    place = {t: i for i, t in enumerate(terms)}
    kept = set(sorted(found, key=lambda t: (hits[t], place[t]))[:limit])
    return [t for t in terms if t in kept]


def _idf(n_rows: int, hits: int) -> float:
    """Return FTS5's IDF for a term ``hits`` of ``n_rows`` documents hold."""
    return max(math.log((n_rows - hits + 0.5) / (hits + 0.5)), _IDF_FLOOR)


def rank(
    conn: sqlite3.Connection,
    match: str,
    terms: list[str],
    top_k: int,
    counts: tuple[int, dict[str, int]] | None = None,
) -> list[tuple[int, float, float]]:
    """Return ``(rowid, score, bm25)`` of the best ``top_k`` matches (see the module docstring).

    ``counts`` is ``document_counts(conn, terms)`` when the caller has it already.
    """
    ranked = conn.execute(
        "SELECT rowid, -bm25(documents_fts) FROM documents_fts WHERE documents_fts MATCH ?"
        " ORDER BY bm25(documents_fts), rowid LIMIT ?",
        (match, top_k),
    ).fetchall()
    if not ranked:
        return []
    n_rows, hits = counts or document_counts(conn, terms)
    ceiling = sum(_idf(n_rows, hits[t]) * (K1 + 1) for t in terms if hits.get(t))
    out = []
    for rowid, raw in ranked:
        score = min(1.0, max(0.0, raw / ceiling)) if ceiling > 0 else 0.0
        out.append((rowid, round(score, 6), raw))
    return out
