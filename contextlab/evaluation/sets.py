"""Labelled evaluation sets: the bundled NaturalQuestions-Open set, user JSONL, the paper's files.

A question is a query with what makes an answer checkable without an LLM: the gold documents
(by id or by source) and/or the answer strings. Its documents are either given (the user's JSONL,
the paper's 10/20/30-document files) or retrieved per question from a store (the bundled set,
or a user's SQLite store).
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from ..errors import LoadError
from ..loaders.reading import DEFAULT_MAX_BYTES, DEFAULT_MAX_DOCUMENTS, check_limits, read_limited, too_big

# One SQuAD normalisation for the set's answers and the model's (``contextlab.models.scoring``).
from ..models.scoring import normalize_answer
from ..types import Document
from ..validation import message_value

if TYPE_CHECKING:
    from ..retrieval import SQLiteBackend

__all__ = [
    "BUNDLED_SET",
    "EvalQuestion",
    "EvalSet",
    "BundledCorpus",
    "StoreRetriever",
    "normalize_answer",
    "bundled_set_path",
    "load_bundled_set",
    "load_eval_set",
    "load_eval_bytes",
    "parse_eval_records",
    "question_documents",
]

#: The name the CLI and the lab show for the bundled set.
BUNDLED_SET = "nq-open (bundled)"
_BUNDLED_DIR = "nq_open_liu2024"
_BUNDLED_FILE = "nq-open-oracle.jsonl.gz"


@dataclass
class EvalQuestion:
    """One labelled question: the query, its answers, its gold documents and maybe its documents.

    ``documents`` is None when they are retrieved per question. A document is gold when its
    ``metadata["id"]`` is in ``gold_ids``, or its source or id is in ``gold_sources``; with
    neither given, documents holding a normalised answer string count as gold.
    """

    query_id: str
    query: str
    answers: tuple[str, ...] = ()
    documents: tuple[Document, ...] | None = None
    gold_ids: frozenset[str] = field(default_factory=frozenset)
    gold_sources: frozenset[str] = field(default_factory=frozenset)

    @property
    def has_gold(self) -> bool:
        """True when the gold documents are named (by id or source), not inferred from answers."""
        return bool(self.gold_ids or self.gold_sources)

    def is_gold(self, doc: Document) -> bool:
        """Return True when ``doc`` is one this question names as gold (by id or by source)."""
        doc_id = doc.metadata.get("id")
        if doc_id is not None and (str(doc_id) in self.gold_ids or str(doc_id) in self.gold_sources):
            return True
        return doc.source is not None and doc.source in self.gold_sources


@dataclass(frozen=True)
class BundledCorpus:
    """Retrieves from every passage of the bundled set (title + text in SQLite FTS5, BM25).

    ``path`` None means the file shipped in the package of the process that retrieves, so a
    Dask worker on another machine reads its own installed copy.
    """

    path: str | None = None

    def retrieve(self, query: str, top_k: int) -> list[Document]:
        """Return the ``top_k`` best passages for ``query``: text as content, title as source."""
        backend, passages = _bundled_index(self.path or str(bundled_set_path()))
        docs = []
        for r in backend.retrieve(query, top_k):
            title, text = passages[str(r.id)]
            docs.append(Document(content=text, score=r.score, source=title, metadata={"id": r.id}))
        return docs


@dataclass(frozen=True)
class StoreRetriever:
    """Retrieves from a contextlab SQLite store file (``contextlab index`` makes one)."""

    path: str

    def retrieve(self, query: str, top_k: int) -> list[Document]:
        """Return the ``top_k`` best stored documents for ``query``, ids in ``metadata["id"]``."""
        backend = _open_store(self.path)
        return [
            Document(content=r.content, score=r.score, source=r.source, metadata={**r.metadata, "id": r.id})
            for r in backend.retrieve(query, top_k)
        ]


@dataclass
class EvalSet:
    """Questions to evaluate and, when they bring no documents, where to retrieve them from."""

    name: str
    questions: list[EvalQuestion]
    retriever: BundledCorpus | StoreRetriever | None = None
    #: What a user should know before running it (questions whose gold matches nothing).
    notes: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.questions)

    def limited(self, limit: int | None) -> EvalSet:
        """Return the set cut to its first ``limit`` questions (all of them for None)."""
        if limit is None:
            return self
        return EvalSet(self.name, self.questions[:limit], self.retriever, self.notes)


def question_documents(
    question: EvalQuestion, retriever: BundledCorpus | StoreRetriever | None, top_k: int
) -> list[Document]:
    """Return ``question``'s documents: its own, else the ``top_k`` best ``retriever`` finds for it."""
    if question.documents is not None:
        return list(question.documents)
    if retriever is None:
        raise LoadError(f"question {question.query_id} has no documents and its set no store to retrieve from")
    return retriever.retrieve(question.query, top_k)


# -- the bundled set -----------------------------------------------------------------------


def bundled_set_path() -> Path:
    """Return the path of the bundled NaturalQuestions-Open file inside the package."""
    return Path(str(files("contextlab") / "data" / "sample_data" / _BUNDLED_DIR / _BUNDLED_FILE))


def _passage_key(title: str, text: str) -> tuple[str, str]:
    return (title, text)


def _opened(path: str, compressed: bool) -> IO[bytes]:
    """Return ``path`` open for reading bytes, decompressed when ``compressed`` (the caller closes it)."""
    if compressed:
        # A GzipFile reads as any binary file does; typeshed does not call it an IO[bytes].
        return cast(IO[bytes], gzip.GzipFile(path, "rb"))
    return open(path, "rb")  # noqa: SIM115 - returned to the caller's with-statement


@lru_cache(maxsize=4)
def _read_paper_file(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[dict[str, object], ...]:
    """Return the records of a (gzipped) JSONL file, read once per process.

    At most ``max_bytes`` are read, counted after decompression: a small gzip file that
    inflates to gigabytes stops at the limit instead of filling memory.
    """
    name = Path(path).name
    compressed = path.endswith(".gz")
    try:
        with _opened(path, compressed) as fh:
            size = 0 if compressed else os.fstat(fh.fileno()).st_size
            if size > max_bytes:
                raise LoadError(too_big(name, size, max_bytes), field="max_bytes")
            data = read_limited(fh, name, max_bytes, expected=size, compressed=compressed)
    except (OSError, EOFError) as exc:
        raise LoadError(f"{path}: cannot be read ({exc})") from None
    return _records(data, path)


def _records(data: bytes, name: str) -> tuple[dict[str, object], ...]:
    """Return the JSON object on each non-blank line of UTF-8 ``data``."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoadError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    del data
    return tuple(
        _json_line(line, number, name) for number, line in enumerate(text.splitlines(), start=1) if line.strip()
    )


def _json_line(line: str, number: int, name: str) -> dict[str, object]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise LoadError(f"{name}: line {number} is not JSON ({exc.msg}); give one JSON object per line") from None
    if not isinstance(record, dict):
        raise LoadError(f"{name}: line {number}: expected a JSON object, got {type(record).__name__}")
    return record


@dataclass(frozen=True)
class _BundledRecord:
    """One line of the bundled file: the question, its answers and its gold passage (title, text)."""

    question: str
    answers: tuple[str, ...]
    title: str
    text: str


@lru_cache(maxsize=2)
def _bundled_records(path: str) -> tuple[_BundledRecord, ...]:
    """Return the bundled file's lines, each checked to be what the package ships."""
    out = []
    for number, record in enumerate(_read_paper_file(path), start=1):
        where = f"{Path(path).name}: line {number}"
        question = record.get("question")
        ctxs = record.get("ctxs")
        first = ctxs[0] if isinstance(ctxs, list) and ctxs else None
        if not isinstance(question, str) or not isinstance(first, dict):
            raise LoadError(f"{where}: not a question with its gold passage; reinstall contextlab")
        title, text = first.get("title"), first.get("text")
        if not isinstance(title, str) or not isinstance(text, str):
            raise LoadError(f"{where}: the gold passage has no title and text; reinstall contextlab")
        out.append(_BundledRecord(question, _strings(record.get("answers"), "answers", where), title, text))
    return tuple(out)


def _bundled_passages(path: str) -> tuple[list[str], dict[str, tuple[str, str]]]:
    """Return each question's gold passage id and the distinct passages (id -> (title, text))."""
    ids: dict[tuple[str, str], str] = {}
    gold: list[str] = []
    for record in _bundled_records(path):
        key = _passage_key(record.title, record.text)
        gold.append(ids.setdefault(key, f"nq-p{len(ids)}"))
    return gold, {pid: key for key, pid in ids.items()}


@lru_cache(maxsize=2)
def _bundled_index(path: str) -> tuple[SQLiteBackend, dict[str, tuple[str, str]]]:
    """Return the in-memory FTS5 store over every bundled passage, built once per process.

    Titles are indexed with the text (``"Title\\ntext"``), as the paper's prompts show them.
    Building takes well under a second, so it is not cached on disk.
    """
    from ..retrieval import SQLiteBackend

    _, passages = _bundled_passages(path)
    backend = SQLiteBackend()
    backend._publishes = False  # a private index, like retrieval.scoring's scratch store: no events
    backend.add([Document(content=f"{t}\n{x}", source=t) for t, x in passages.values()], ids=list(passages))
    return backend, passages


@lru_cache(maxsize=4)
def _open_store(path: str) -> SQLiteBackend:
    from ..retrieval import SQLiteBackend

    if not Path(path).is_file():
        raise LoadError(f"store {path!r} does not exist; build one with `contextlab index`")
    backend = SQLiteBackend(path)
    backend._publishes = False
    return backend


def load_bundled_set() -> EvalSet:
    """Return the bundled NaturalQuestions-Open set (2,655 questions, passages retrieved by BM25)."""
    path = str(bundled_set_path())
    gold, _ = _bundled_passages(path)
    questions = [
        EvalQuestion(query_id=f"nq-{i}", query=r.question, answers=r.answers, gold_ids=frozenset([gold[i]]))
        for i, r in enumerate(_bundled_records(path))
    ]
    return EvalSet(BUNDLED_SET, questions, BundledCorpus())


# -- user sets -----------------------------------------------------------------------------


def load_eval_set(path: str | Path, *, store: str | Path | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> EvalSet:
    """Return the evaluation set in a JSONL file (``.jsonl`` or ``.jsonl.gz``).

    Each line is either ``{"query", "documents"?, "gold_sources"?, "answers"?, "id"?}`` or the
    paper's ``{"question", "answers", "ctxs": [{"title", "text", "isgold", "hasanswer"}]}``.
    Questions without documents are answered from ``store`` (a contextlab SQLite store file).
    At most ``max_bytes`` are read (after decompression).
    """
    name = str(path)
    if not Path(name).is_file():
        raise LoadError(f"evaluation set {name!r} does not exist; give a JSONL file, or no path for the bundled set")
    check_limits(max_bytes, DEFAULT_MAX_DOCUMENTS)
    records = _read_paper_file(name, max_bytes)
    return parse_eval_records(records, name=Path(name).name, store=store)


def load_eval_bytes(
    data: bytes, name: str, *, store: str | Path | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> EvalSet:
    """Return the evaluation set in uploaded JSONL bytes (gzip is recognised by its magic number).

    At most ``max_bytes`` are read, counted after decompression, which stops at the limit.
    """
    check_limits(max_bytes, DEFAULT_MAX_DOCUMENTS)
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
                data = read_limited(cast(IO[bytes], fh), name, max_bytes, compressed=True)
        except (OSError, EOFError) as exc:
            raise LoadError(f"{name}: not a readable gzip file ({exc})") from None
    elif len(data) > max_bytes:
        raise LoadError(too_big(name, len(data), max_bytes), field="max_bytes")
    return parse_eval_records(_records(data, name), name=name, store=store)


def parse_eval_records(
    records: Iterable[Any], *, name: str = "evaluation set", store: str | Path | None = None
) -> EvalSet:
    """Return the evaluation set in ``records`` (dicts, as ``load_eval_set`` reads them)."""
    questions = [_question(r, i, name) for i, r in enumerate(records, start=1)]
    if not questions:
        raise LoadError(f"{name}: holds no questions; give one JSON object per line")
    _refuse_duplicate_ids(questions, name)
    unlabelled = [q.query_id for q in questions if not q.has_gold and not q.answers]
    if len(unlabelled) == len(questions):
        raise LoadError(
            f"{name}: no question has gold documents or answers, so nothing can be measured; "
            'add "gold_sources" or "answers" to each line'
        )
    needs_docs = [q.query_id for q in questions if q.documents is None]
    if needs_docs and store is None:
        raise LoadError(
            f"{name}: {len(needs_docs)} question(s) have no documents (first: {needs_docs[0]}); "
            'give them "documents" or retrieve from a store (--store PATH)'
        )
    if store is not None and not needs_docs:
        raise LoadError(
            f"{name}: every question has its documents, so the store {str(store)!r} would not be "
            'used; leave out --store, or drop "documents" to retrieve from it'
        )
    retriever = StoreRetriever(str(Path(store).expanduser())) if store is not None else None
    if retriever is not None:
        _open_store(retriever.path)  # fail now, with the path, rather than in a worker
    return EvalSet(name, questions, retriever, _gold_notes(questions, retriever, name))


def _refuse_duplicate_ids(questions: list[EvalQuestion], name: str) -> None:
    """Raise ``LoadError`` naming the ids more than one question carries (rows are joined by id)."""
    counts = Counter(q.query_id for q in questions)
    repeated = [query_id for query_id, count in counts.items() if count > 1]
    if repeated:
        shown = ", ".join(message_value(i) for i in repeated[:5])
        more = f", ... ({len(repeated)} in all)" if len(repeated) > 5 else ""
        raise LoadError(
            f'{name}: question ids must be unique; repeated: {shown}{more}; give each line its own "id"',
            field="id",
        )


_CHECK_GOLD = 'check "gold_sources" against the documents\' sources or ids'


def _gold_notes(questions: list[EvalQuestion], retriever: StoreRetriever | None, name: str) -> list[str]:
    """Return a note per kind of question whose named gold matches nothing; raise when none matches."""
    named = [q for q in questions if q.has_gold]
    in_docs = [q.query_id for q in named if q.documents is not None and not any(map(q.is_gold, q.documents))]
    from_store = [q for q in named if q.documents is None]
    known = (
        _open_store(retriever.path).known_names({n for q in from_store for n in q.gold_ids | q.gold_sources})
        if retriever and from_store
        else set()
    )
    in_store = [q.query_id for q in from_store if not (q.gold_ids | q.gold_sources) & known]
    if named and len(in_docs) + len(in_store) == len(named):
        first = (in_docs or in_store)[0]
        raise LoadError(
            f"{name}: no question's gold matches any of its documents (first: {first}), so "
            f"gold in block would be 0 for every one; {_CHECK_GOLD}"
        )
    notes = []
    for missing, where in ((in_docs, "none of their documents"), (in_store, "nothing in the store")):
        if missing:
            shown = ", ".join(missing[:5]) + (f", ... ({len(missing)} in all)" if len(missing) > 5 else "")
            notes.append(
                f"{name}: {len(missing)} of {len(questions)} questions name gold that matches "
                f"{where} ({shown}), so their gold cannot reach the block; {_CHECK_GOLD}"
            )
    return notes


def _strings(value: Any, field_name: str, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LoadError(f'{where}: "{field_name}" must be a list of strings')
    return tuple(value)


def _question(record: Any, number: int, name: str) -> EvalQuestion:
    where = f"{name}: line {number}"
    if not isinstance(record, dict):
        raise LoadError(f"{where}: expected a JSON object, got {type(record).__name__}")
    query = record.get("query", record.get("question"))
    if not isinstance(query, str) or not query.strip():
        raise LoadError(f'{where}: needs a "query" (or the paper\'s "question") with text')
    query_id = str(record.get("id", record.get("query_id", f"q{number}")))
    answers = _strings(record.get("answers"), "answers", where)
    if "ctxs" in record:
        return _paper_question(record["ctxs"], query_id, query, answers, where)
    gold_sources = frozenset(_strings(record.get("gold_sources"), "gold_sources", where))
    documents = None
    if record.get("documents") is not None:
        documents = tuple(_given_documents(record["documents"], where))
    return EvalQuestion(query_id, query, answers, documents, gold_sources=gold_sources)


def _given_documents(raw: Any, where: str) -> list[Document]:
    from ..loaders import documents_from_records

    if not isinstance(raw, list):
        raise LoadError(f'{where}: "documents" must be a list of strings or objects')
    docs = documents_from_records(raw, name=f"{where}: documents")
    # Documents listed without scores are taken as ranked in the order given (all 1.0; the
    # engine's sort is stable), rather than re-scored: the file's order is its retriever's.
    return [
        d
        if "score_missing" not in d.metadata
        else Document(
            content=d.content,
            source=d.source,
            metadata={k: v for k, v in d.metadata.items() if k != "score_missing"},
            timestamp=d.timestamp,
            importance=d.importance,
        )
        for d in docs
    ]


def _paper_question(ctxs: Any, query_id: str, query: str, answers: tuple[str, ...], where: str) -> EvalQuestion:
    """Return a question in the paper's format: ``ctxs`` in file order, ``isgold`` marks the gold."""
    if not isinstance(ctxs, list) or not all(isinstance(c, dict) and isinstance(c.get("text"), str) for c in ctxs):
        raise LoadError(f'{where}: "ctxs" must be a list of objects with a "text"')
    docs, gold = [], set()
    for k, ctx in enumerate(ctxs):
        doc_id = str(ctx.get("id", f"{query_id}-ctx{k}"))
        title = ctx.get("title") if isinstance(ctx.get("title"), str) else None
        docs.append(
            Document(
                content=ctx["text"], source=title, metadata={"id": doc_id, "hasanswer": bool(ctx.get("hasanswer"))}
            )
        )
        if ctx.get("isgold"):
            gold.add(doc_id)
    if not gold:
        gold = {d.metadata["id"] for d in docs if d.metadata["hasanswer"]}
    return EvalQuestion(query_id, query, answers, tuple(docs), gold_ids=frozenset(gold))
