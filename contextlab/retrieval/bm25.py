"""BM25 ranking over the store's FTS5 index, with scores normalised to [0, 1].

How scores are normalised to [0, 1]
-----------------------------------
FTS5's ``bm25()`` finds and orders the candidates. Each candidate is then scored term by term
from the same index: for a query term ``t`` FTS5 gives ``idf(t) * s(t, d)``, where the
saturation ``s = tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen))`` (k1 = 1.2, b = 0.75)
is exactly 1.0 for one occurrence in a document of average length. The score is::

    score(d) = sum(w(t) * min(1, s(t, d))) / sum(w(t))      w(t) = ln(1 + (N - n + 0.5) / (n + 0.5))

over the query terms found in the store (``N`` documents, ``n`` holding ``t``): the IDF-weighted
share of the query this document covers. 1.0 when it holds every query word the store knows
(once is enough at average length; a long document needs more), 0.5 when it holds words
carrying half that weight, 0 when it holds none. Two choices make ``min_score`` mean the same
thing in every store and for every query length:

- ``w`` is the always-positive IDF (as in Lucene), not FTS5's, which floors a word found in
  more than half the documents to 1e-6: in a small set retrieved for one topic the topic word is
  in most documents, and must still count.
- Words no stored document contains ("how", a typo) are left out, since nothing could cover them.

Results are ordered by that score, ties by the uncapped ``sum(w * s)``, which is kept in
``RetrievalResult.metadata["bm25"]``.
"""

from __future__ import annotations

import json
import math
import sqlite3

__all__ = ["rank"]

# FTS5's bm25() floor for the IDF of a term in over half the rows (fts5_aux.c).
_IDF_FLOOR = 1e-6
# At least this many FTS5 candidates are re-scored, so re-scoring can reorder the top ones.
_MIN_CANDIDATES = 200


def rank(
    conn: sqlite3.Connection, match: str, terms: list[str], top_k: int
) -> list[tuple[int, float, float]]:
    """Return ``(rowid, score, bm25)`` of the best ``top_k`` matches (see the module docstring)."""
    # FTS5's own bm25() picks the candidates; they are then re-scored term by term.
    limit = max(4 * top_k, _MIN_CANDIDATES)
    candidates = [
        r[0] for r in conn.execute(
            "SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?"
            " ORDER BY bm25(documents_fts) LIMIT ?",
            (match, limit),
        )
    ]
    if not candidates:
        return []
    n_rows = conn.execute("SELECT count(*) FROM documents_fts").fetchone()[0]
    candidate_json = json.dumps(candidates)
    weights: dict[str, float] = {}
    # saturation[rowid][term]: tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen))
    saturation: dict[int, dict[str, float]] = {rowid: {} for rowid in candidates}
    for term in terms:
        phrase = f'"{term}"'
        hits = conn.execute(
            "SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?", (phrase,)
        ).fetchone()[0]
        if hits == 0:
            continue  # no stored document can cover it: it must not lower every score
        ratio = (n_rows - hits + 0.5) / (hits + 0.5)
        fts_idf = max(math.log(ratio), _IDF_FLOOR)  # what FTS5 multiplies by
        weights[term] = math.log1p(ratio)  # always > 0, even for very common words
        for rowid, raw in conn.execute(
            "SELECT rowid, -bm25(documents_fts) FROM documents_fts WHERE documents_fts MATCH ?"
            " AND rowid IN (SELECT value FROM json_each(?))",
            (phrase, candidate_json),
        ):
            saturation[rowid][term] = raw / fts_idf
    total = sum(weights.values())
    scored = []
    for order, rowid in enumerate(candidates):
        sat = saturation[rowid]
        raw = sum(weights[t] * s for t, s in sat.items())
        covered = sum(weights[t] * min(1.0, s) for t, s in sat.items())
        score = min(1.0, max(0.0, covered / total)) if total > 0 else 0.0
        scored.append((-score, -raw, order, rowid, score, raw))
    scored.sort()
    return [(rowid, round(score, 6), raw) for *_, rowid, score, raw in scored[:top_k]]
