"""The one evaluation loop: the rows of some questions under every configuration.

What the serial run (``run.py``), the Dask run (``cluster.py``) and the measured run
(``measured.py``, which asks a model about each row's block) all execute; it sits below them
so none imports another back.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..build_cache import BuildCache
from ..manager import ContextManager
from ..types import ContextResult, PromptRequest
from .grid import Configuration
from .metrics import apply_curve, prepare_question, question_metrics
from .options import RunOptions
from .rows import EvalRow
from .sets import BundledCorpus, EvalQuestion, StoreRetriever, question_documents

__all__ = ["CONNECT_TIMEOUT_S", "OnRow", "default_chunk_size", "evaluate_chunk"]

#: How long to wait for a Dask scheduler before saying it cannot be reached.
CONNECT_TIMEOUT_S = 5
#: Told of every row as it is made: the question, the configuration's index, its build.
OnRow = Callable[[EvalQuestion, int, ContextResult], None]


def evaluate_chunk(
    questions: Sequence[EvalQuestion],
    retriever: BundledCorpus | StoreRetriever | None,
    configs: Sequence[Configuration],
    options: RunOptions,
    cache: BuildCache | None = None,
    *,
    managers: Sequence[ContextManager] | None = None,
    on_row: OnRow | None = None,
) -> list[EvalRow]:
    """Return the rows of ``questions`` under every configuration (question-major order).

    Pure: the same arguments give the same rows in any process, which is what lets Dask
    split the work by question chunks. ``cache`` (a ``BuildCache``, one made when None) only
    saves work: retrieved passages recur across questions, so it is shared by the chunk.
    ``options`` says how many documents are retrieved (``top_k``), whose curve estimates
    ``expected_accuracy`` (``curve_model``, or a measured ``curves``) and whether a row keeps its
    block (``blocks``). ``managers`` (one per configuration; default: each configuration's own)
    and ``on_row`` are the measured run's: a manager counting in the model's tokens, and the
    prompt made of each block.
    """
    managers = list(managers) if managers is not None else [c.make_manager() for c in configs]
    cache = cache if cache is not None else BuildCache()
    rows: list[EvalRow] = []
    for q in questions:
        docs = question_documents(q, retriever, options.top_k)
        prep = prepare_question(q, docs)
        for k, (config, manager) in enumerate(zip(configs, managers, strict=False)):
            request = PromptRequest(
                query=q.query, documents=prep.documents, max_context_tokens=config.config.max_context_tokens
            )
            result = manager.build(request, cache=cache)
            row = EvalRow(
                config.label,
                q.query_id,
                config.settings,
                question_metrics(prep, result, options.curve_model),
                block=result.context_block if options.blocks else None,
            )
            if options.curves is not None:
                row = apply_curve([row], options.curves)[0]
            rows.append(row)
            if on_row is not None:
                on_row(q, k, result)
    return rows


def default_chunk_size(n_questions: int, n_workers: int) -> int:
    """Return a chunk size giving each worker about eight chunks (for balance and progress)."""
    return max(1, min(250, math.ceil(n_questions / max(1, 8 * n_workers))))
