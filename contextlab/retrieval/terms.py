"""The words of a text, as the store indexes them and a query searches them.

One tokenizer serves the store (what it indexes and what it searches for) and the scoring of
unscored documents, so a query word and a document word always meet in the same form:

- lower case; a word is a run of letters and digits, with apostrophes inside it;
- possessives and contractions are cut back to the word a person meant: "refund's" is
  "refund", "what's" is "what", "I'm" is "i", "they'll" is "they", and "don't" is "do" +
  "not" (so "s", "m" or "t" never become rare, heavily weighted query words);
- a query leaves out English function words (``STOPWORDS``) unless it has nothing else.

Stemming ("refunds" finds "refund") is left to the store's FTS5 ``porter`` tokenizer, which
sees both sides in this form.
"""

from __future__ import annotations

import re

__all__ = [
    "STOPWORDS",
    "MAX_QUERY_TERMS",
    "MAX_QUERY_WORDS",
    "words",
    "index_text",
    "query_terms",
    "match_expression",
    "fts_query",
]

#: The most words one search looks for: a longer query keeps its most informative ones
#: (``bm25.informative_terms``) and says how many it left out.
MAX_QUERY_TERMS = 64
#: The most distinct words of a query the store looks up (one count each, ~25 us): a pasted
#: book's later words are left out, and counted as left out.
MAX_QUERY_WORDS = 20_000
# Letters and digits, with apostrophes (straight, curly or modifier) inside a word.
_WORD = re.compile(r"[^\W_]+(?:['\u2019\u02bc][^\W_]+)*")
_APOSTROPHE = re.compile(r"['\u2019\u02bc]")
# What follows the apostrophe in a contraction or a possessive: dropped, the word kept.
_CLITICS = frozenset({"s", "m", "re", "ve", "ll", "d"})
# "n't" forms whose stem is not simply the word minus its "n".
_NOT_STEMS = {"can": "can", "won": "will", "shan": "shall", "ain": "is"}

#: English function words a query does not search for (the common stopword list of NLTK and
#: scikit-learn's core, with the pieces contractions leave). In a handful of documents
#: retrieved for one question "the" or "and" can be rarer than the topic word, and would
#: outweigh it.
STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "couldn",
        "d",
        "did",
        "didn",
        "do",
        "does",
        "doesn",
        "doing",
        "don",
        "down",
        "during",
        "each",
        "either",
        "else",
        "etc",
        "ever",
        "every",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn",
        "has",
        "hasn",
        "have",
        "haven",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn",
        "it",
        "its",
        "itself",
        "just",
        "least",
        "let",
        "ll",
        "m",
        "ma",
        "may",
        "me",
        "might",
        "mightn",
        "more",
        "most",
        "must",
        "mustn",
        "my",
        "myself",
        "needn",
        "neither",
        "no",
        "nor",
        "not",
        "now",
        "o",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "others",
        "otherwise",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "please",
        "rather",
        "re",
        "s",
        "same",
        "shall",
        "shan",
        "she",
        "should",
        "shouldn",
        "since",
        "so",
        "some",
        "such",
        "t",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "to",
        "too",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "ve",
        "very",
        "via",
        "was",
        "wasn",
        "we",
        "were",
        "weren",
        "what",
        "whatever",
        "when",
        "where",
        "whether",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "won",
        "would",
        "wouldn",
        "y",
        "yet",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)


def words(text: str) -> list[str]:
    """Return the words of ``text`` in order, lower-cased, contractions and possessives undone."""
    out: list[str] = []
    for token in _WORD.findall(text.lower()):
        if not _APOSTROPHE.search(token):
            out.append(token)
            continue
        parts = _APOSTROPHE.split(token)
        if len(parts) == 2 and parts[1] == "t" and parts[0].endswith("n") and len(parts[0]) > 1:
            out.extend((_NOT_STEMS.get(parts[0], parts[0][:-1]), "not"))  # don't -> do not
            continue
        if parts[-1] in _CLITICS:
            parts = parts[:-1]  # refund's -> refund, I'm -> i, O'Brien's -> o brien
        out.extend(parts)  # o'brien, rock'n'roll: each piece is a word
    return out


def index_text(text: str) -> str:
    """Return ``text`` as the store indexes it: its ``words`` joined by spaces."""
    return " ".join(words(text))


def query_terms(text: str) -> list[str]:
    """Return the distinct words a query searches for, in order (function words left out).

    ``STOPWORDS`` are left out unless the query has nothing else. All of them, however many:
    the store chooses which to search (``MAX_QUERY_TERMS``) and says how many it left out.
    """
    seen = list(dict.fromkeys(words(text)))
    return [t for t in seen if t not in STOPWORDS] or seen


def match_expression(terms: list[str]) -> str:
    """Return the FTS5 MATCH expression for ``terms``: each a quoted string, joined by OR.

    So quotes, ``AND``/``OR``/``NOT``/``NEAR``, ``*``, ``-``, ``:``, ``^`` and parentheses in
    user text are searched as words or ignored, never parsed as query syntax.
    """
    return " OR ".join(f'"{t}"' for t in terms)


def fts_query(text: str) -> tuple[str, list[str]]:
    """Return an FTS5 MATCH expression for user ``text`` and the terms in it.

    Returns ``("", [])`` when the text holds no word. The terms are all of ``query_terms``;
    a store searches at most ``MAX_QUERY_TERMS`` of them (``SQLiteBackend.search``).
    """
    terms = query_terms(text)
    return match_expression(terms), terms
