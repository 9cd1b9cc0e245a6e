"""The documents of each prompt of a context experiment: padding, distractors, shuffles, the answer removed.

Every choice is seeded by the run's seed and the question's id (never by the level alone), so the
same run asks the same prompts again and a rerun takes its answers from the response cache.
Filler and random distractors are passages unrelated to the question: none holds one of its
answers, none shares a title with its answer passage or with the passages retrieved for it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from ...errors import InvalidInputError
from ...models.prompts import paper_documents
from ...models.scoring import normalize_answer
from ...tokenizers import Tokenizer
from ...types import Document
from ..sets import EvalQuestion

__all__ = [
    "FILLER_MAX_BYTES",
    "bundled_filler",
    "read_filler",
    "shuffled_pool",
    "unrelated_passages",
    "padded_documents",
    "with_distractors",
    "shuffled_documents",
]

#: The largest filler file read (far above what a 128k-token context holds).
FILLER_MAX_BYTES = 50 * 1024 * 1024
# A passage cut to fit is kept only when at least this many of its tokens fit.
_SHORTEST_CUT = 16


@lru_cache(maxsize=1)
def bundled_filler() -> tuple[Document, ...]:
    """Return every bundled NaturalQuestions-Open passage (title as source, its id in metadata)."""
    from ..sets import _bundled_passages, bundled_set_path

    _, passages = _bundled_passages(str(bundled_set_path()))
    return tuple(Document(content=text, source=title, metadata={"id": pid}) for pid, (title, text) in passages.items())


def read_filler(path: str | Path) -> tuple[Document, ...]:
    """Return the passages of a filler text file: its paragraphs (blocks between blank lines)."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise InvalidInputError(f"filler {str(file)!r} is not a file; give a text file of passages", field="filler")
    if file.stat().st_size > FILLER_MAX_BYTES:
        raise InvalidInputError(
            f"filler {str(file)!r} is over {FILLER_MAX_BYTES // (1024 * 1024)} MB; give a smaller text file",
            field="filler",
        )
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError(f"filler {str(file)!r} is not UTF-8 text", field="filler") from None
    blocks = [" ".join(block.split()) for block in text.replace("\r\n", "\n").split("\n\n")]
    passages = tuple(Document(content=b, metadata={"id": f"filler-{i}"}) for i, b in enumerate(blocks) if b)
    if not passages:
        raise InvalidInputError(
            f"filler {str(file)!r} holds no text; give passages separated by blank lines", field="filler"
        )
    return passages


def shuffled_pool(pool: Sequence[Document], seed: int) -> list[Document]:
    """Return ``pool`` in the run's seeded order (the same for every question, so counts are reused)."""
    order = list(pool)
    random.Random(f"pool:{seed}").shuffle(order)
    return order


def _holds(doc: Document, answers: Sequence[str]) -> bool:
    said = normalize_answer(f"{doc.source or ''} {doc.content}")
    return any(a in said for a in answers)


def unrelated_passages(
    question: EvalQuestion, gold: Document, pool: Sequence[Document], related: Sequence[Document]
) -> Iterator[Document]:
    """Yield the passages of ``pool``, in order, that are unrelated to ``question`` (see the module)."""
    answers = [a for a in (normalize_answer(x) for x in question.answers) if a]
    titles = {d.source for d in (gold, *related) if d.source}
    ids = {str(d.metadata.get("id")) for d in (gold, *related) if d.metadata.get("id") is not None}
    for doc in pool:
        if (doc.source and doc.source in titles) or str(doc.metadata.get("id")) in ids or _holds(doc, answers):
            continue
        yield doc


def _line_tokens(doc: Document, tokenizer: Tokenizer) -> int:
    return tokenizer.count(paper_documents([doc])) + 1  # its line, and the newline between lines


def padded_documents(
    gold: Document, filler: Iterator[Document], tokens: int, position: int, tokenizer: Tokenizer
) -> list[Document] | None:
    """Return ``gold`` at ``position`` among filler passages, at most ``tokens`` tokens (None: gold alone is longer).

    Filler passages are added while they fit; the first that does not is cut to the room left
    (when at least a few tokens fit), and nothing follows it.
    """
    used = _line_tokens(gold, tokenizer)
    if used > tokens:
        return None
    fill: list[Document] = []
    for doc in filler:
        need = _line_tokens(doc, tokenizer)
        if used + need <= tokens:
            fill.append(doc)
            used += need
            continue
        room = tokens - used - _line_tokens(replace(doc, content=""), tokenizer) - 1
        if room >= _SHORTEST_CUT:
            fill.append(replace(doc, content=tokenizer.truncate(doc.content, room)))
        break
    docs = _placed(gold, fill, position)
    while len(docs) > 1 and tokenizer.count(paper_documents(docs)) > tokens:  # numbering and joins, counted whole
        fill.pop()
        docs = _placed(gold, fill, position)
    return docs


def _placed(gold: Document, others: Sequence[Document], position: int) -> list[Document]:
    at = min(position, len(others) + 1) - 1
    return [*others[:at], gold, *others[at:]]


def with_distractors(gold: Document, distractors: Sequence[Document], seed: int, query_id: str) -> list[Document]:
    """Return ``gold`` and ``distractors`` at seeded random places (the same question and count: the same places)."""
    docs = [gold, *distractors]
    random.Random(f"distractors:{seed}:{query_id}:{len(distractors)}").shuffle(docs)
    return docs


def shuffled_documents(documents: Sequence[Document], seed: int, query_id: str, order: int) -> list[Document]:
    """Return ``documents`` in the question's seeded shuffle number ``order``."""
    docs = list(documents)
    random.Random(f"orders:{seed}:{query_id}:{order}").shuffle(docs)
    return docs
