"""The words of a text, as the store indexes them and a query searches them.

One tokenizer serves the store (what it indexes and what it searches for) and the scoring of
unscored documents, so a query word and a document word always meet in the same form.
"""

from __future__ import annotations

import re

__all__ = ["STOPWORDS", "MAX_QUERY_TERMS", "fts_query", "query_terms"]

# Bounds the cost of a pasted essay used as a query: one count query per distinct term.
MAX_QUERY_TERMS = 64
_TERM = re.compile(r"[^\W_]+")

#: Query words that carry no topic. In a handful of documents retrieved for one question "the"
#: or "and" can be rarer than the topic word, and would outweigh it; so they are not searched.
STOPWORDS: frozenset[str] = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not of off on once only or other our ours ourselves out over
own same she should so some such than that the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which while who
whom why will with would you your yours yourself yourselves
""".split())


def query_terms(text: str) -> list[str]:
    """Return the distinct words a query searches for, in order (function words left out).

    English function words (``STOPWORDS``) are left out unless the query has nothing else.
    At most ``MAX_QUERY_TERMS`` words are kept.
    """
    seen: dict[str, None] = {}
    for word in _TERM.findall(text.lower()):
        seen.setdefault(word, None)
    terms = [t for t in seen if t not in STOPWORDS] or list(seen)
    return terms[:MAX_QUERY_TERMS]


def fts_query(text: str) -> tuple[str, list[str]]:
    """Return an FTS5 MATCH expression for user ``text`` and the terms in it.

    Every word becomes a quoted string joined by OR, so quotes, ``AND``/``OR``/``NOT``/``NEAR``,
    ``*``, ``-``, ``:``, ``^`` and parentheses in user text are searched as words or ignored,
    never parsed as query syntax. Returns ``("", [])`` when the text holds no word.
    """
    terms = query_terms(text)
    return " OR ".join(f'"{t}"' for t in terms), terms
