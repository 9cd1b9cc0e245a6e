"""Merge: chunks of one source that overlap or touch become one passage, before the budget.

A chunked document carries its span: ``metadata["chunk_of"]`` (the source), ``start`` and ``end``
(character offsets in the source's text), maybe ``page``. Two chunks of one source whose spans
overlap are one passage: its text holds the shared part once and its span is widened to cover both.
Chunks that touch (a gap of at most ``MAX_GAP`` characters, the whitespace the chunker cut at) are
joined too, the gap written as a space (one character) or a blank line (two). Chunks whose texts
disagree where their spans say they overlap are left apart: they are not cut from one text.

Only chunks the budget picked are merged (``merge_picked``): the block would otherwise hold their
shared text twice; the documents are then built again with the passage in their place. The build
runs on the passages; ``expand_result`` gives every input document its own trace entry again,
saying which chunks were merged into its passage and why.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from ..types import IN_BLOCK_FATES, ContextResult, DocTrace, Document, DuplicatePair

__all__ = ["MAX_GAP", "MAX_ROUNDS", "MergeOutcome", "merge_chunks", "merge_picked", "expand_result"]

#: The most rebuilds merging may ask for: each round merges what the budget picked, then builds again.
MAX_ROUNDS = 8

#: The widest gap (in characters) between two chunks that still touch: the whitespace they were cut at.
MAX_GAP = 2


@dataclass(frozen=True)
class MergeOutcome:
    """The passages (merged or single documents, in input order) and the input indices each one holds."""

    documents: list[Document]
    members: list[tuple[int, ...]]

    @property
    def merged_any(self) -> bool:
        """True when at least one passage holds more than one input document."""
        return any(len(m) > 1 for m in self.members)


@dataclass
class _Run:
    key: str
    start: int
    end: int
    text: str
    members: list[int]


def _span(doc: Document) -> tuple[str, int, int] | None:
    meta = doc.metadata
    key, start, end = meta.get("chunk_of"), meta.get("start"), meta.get("end")
    if not isinstance(key, str) or not isinstance(start, int) or not isinstance(end, int):
        return None
    if isinstance(start, bool) or isinstance(end, bool) or not 0 <= start < end:
        return None
    return key, start, end


def _joined(run: _Run, text: str, start: int, end: int) -> str | None:
    """Return ``run``'s text widened by a chunk at ``start:end``, or None when the two do not agree."""
    if start > run.end:
        gap = start - run.end
        return run.text + (" " if gap == 1 else "\n\n") + text
    shared = min(run.end, end) - start
    if run.text[start - run.start : start - run.start + shared] != text[:shared]:
        return None
    return run.text + text[shared:] if end > run.end else run.text


def merge_chunks(documents: Sequence[Document], among: Collection[int] | None = None) -> MergeOutcome:
    """Return ``documents`` with the overlapping or touching chunks of each source merged into one passage.

    ``among``: only these indices may be merged (the documents a budget picked); the rest stay as they are.
    """
    spans = [_span(d) if among is None or i in among else None for i, d in enumerate(documents)]
    order = sorted((s[0], s[1], s[2], i) for i, s in enumerate(spans) if s is not None)
    runs: list[_Run] = []
    for key, start, end, index in order:
        run = runs[-1] if runs and runs[-1].key == key and start <= runs[-1].end + MAX_GAP else None
        joined = _joined(run, documents[index].content, start, end) if run is not None else None
        if run is None or joined is None:
            runs.append(_Run(key, start, end, documents[index].content, [index]))
            continue
        run.text, run.end = joined, max(run.end, end)
        run.members.append(index)
    run_of = {run.members[0]: run for run in runs}
    absorbed = {i for run in runs for i in run.members[1:]}
    out_docs: list[Document] = []
    members: list[tuple[int, ...]] = []
    for i, doc in enumerate(documents):
        if i in absorbed:
            continue
        run = run_of.get(i)
        if run is None or len(run.members) == 1:
            out_docs.append(doc)
            members.append((i,))
            continue
        ordered = tuple(sorted(run.members))
        out_docs.append(_passage(run, [documents[m] for m in run.members]))
        members.append(ordered)
    return MergeOutcome(out_docs, members)


def merge_picked(
    documents: Sequence[Document], build: Callable[[Sequence[Document]], ContextResult]
) -> tuple[ContextResult, MergeOutcome]:
    """Return the build of ``documents`` in which no two chunks of one source in the block overlap or touch.

    ``build`` builds a list of documents. Chunks the budget picked that overlap or touch are merged into one
    passage and the documents built again (the tokens a shared part and a second header took are free for
    another document), until the block holds no such pair or ``MAX_ROUNDS`` rebuilds were made. Only picked
    chunks are merged: all the chunks of a long file, given at once, are not joined back into the file.
    The outcome's members are indices into ``documents``.
    """
    current: Sequence[Document] = documents
    members: list[tuple[int, ...]] = [(i,) for i in range(len(current))]
    result = build(current)  # the documents themselves first: a caller's cache of them still holds
    for _ in range(MAX_ROUNDS):
        picked = {t.input_index for t in result.trace if t.fate in IN_BLOCK_FATES}
        outcome = merge_chunks(current, picked)
        if not outcome.merged_any:
            break
        members = [tuple(sorted(i for m in group for i in members[m])) for group in outcome.members]
        current = outcome.documents
        result = build(current)
    return result, MergeOutcome(list(current), members)


def _passage(run: _Run, parts: list[Document]) -> Document:
    best = max(parts, key=lambda d: d.score)
    pages = [p for p in (d.metadata.get("page") for d in parts) if isinstance(p, int)]
    where = ""
    if pages:
        where = f" p. {min(pages)}" if min(pages) == max(pages) else f" pp. {min(pages)}-{max(pages)}"
    meta: dict[str, object] = {k: v for k, v in best.metadata.items() if k not in ("tokens",)}
    meta.update({"chunk_of": run.key, "start": run.start, "end": run.end, "merged_chunks": len(parts)})
    if pages:
        meta["page"] = min(pages)
    return replace(best, content=run.text, source=f"{run.key}{where}, chars {run.start}-{run.end}", metadata=meta)


def expand_result(result: ContextResult, outcome: MergeOutcome, documents: Sequence[Document]) -> ContextResult:
    """Return ``result`` (built on the passages) with one trace entry per input document again.

    Each chunk merged into a passage shares the passage's fate and position; its reason says which
    chunks were merged with it and why. Indices in the trace and the duplicate pairs become input indices.
    """
    first = [m[0] for m in outcome.members]
    trace: list[DocTrace | None] = [None] * len(documents)
    for j, entry in enumerate(result.trace):
        passage = outcome.members[j]
        for i in passage:
            moved = replace(
                entry,
                input_index=i,
                source=documents[i].source,
                score=documents[i].score,
                duplicate_of=None if entry.duplicate_of is None else first[entry.duplicate_of],
            )
            if len(passage) > 1:
                others = ", ".join(f"#{k}" for k in passage if k != i)
                doc = outcome.documents[j]
                moved.reason = (
                    f"merged with {others}: chunks of {doc.metadata['chunk_of']} that overlap or touch, one passage "
                    f"(chars {doc.metadata['start']}-{doc.metadata['end']}); " + entry.reason
                )
            trace[i] = moved
    pairs = [
        DuplicatePair(first[p.kept_index], first[p.dropped_index], p.similarity, p.kind) for p in result.duplicate_pairs
    ]
    walk = [first[i] for i in result.budget_walk]
    return replace(result, trace=[t for t in trace if t is not None], duplicate_pairs=pairs, budget_walk=walk)
