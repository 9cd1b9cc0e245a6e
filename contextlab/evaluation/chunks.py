"""One chunk of an evaluation: the rows of some questions under every configuration.

What the serial run (``run.py``) and the Dask run (``cluster.py``) both execute; it sits below
both so neither imports the other back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..build_cache import BuildCache
from ..types import ContextResult, PromptRequest
from .grid import Configuration
from .metrics import prepare_question, question_metrics
from .sets import EvalQuestion

__all__ = ["CONNECT_TIMEOUT_S", "default_chunk_size", "evaluate_chunk", "new_cache"]

#: How long to wait for a Dask scheduler before saying it cannot be reached.
CONNECT_TIMEOUT_S = 5


def new_cache() -> BuildCache:
    """Return a new engine cache of token counts and dedup outcomes (shared by a chunk)."""
    return BuildCache()


def _build(manager: Any, request: PromptRequest, cache: Any) -> ContextResult:
    return manager.build(request) if cache is None else manager.build(request, cache=cache)


def evaluate_chunk(questions: Sequence[EvalQuestion], retriever: Any, configs: Sequence[Configuration],
                   top_k: int, model: str, cache: Any = None, *, blocks: bool = False) -> list[dict[str, Any]]:
    """Return the rows of ``questions`` under every configuration (question-major order).

    Pure: the same arguments give the same rows in any process, which is what lets Dask
    split the work by question chunks. ``cache`` (a ``BuildCache``, one made when None) only
    saves work: retrieved passages recur across questions, so it is shared by the chunk.
    ``blocks`` adds each row's context block (``block``), the text the row was scored on.
    """
    managers = [c.make_manager() for c in configs]
    cache = cache if cache is not None else new_cache()
    rows: list[dict[str, Any]] = []
    for q in questions:
        docs = list(q.documents) if q.documents is not None else retriever.retrieve(q.query, top_k)
        prep = prepare_question(q, docs)
        for config, manager in zip(configs, managers):
            request = PromptRequest(query=q.query, documents=prep.documents,
                                    max_context_tokens=config.config.max_context_tokens)
            result = _build(manager, request, cache)
            rows.append({"config": config.label, "query_id": q.query_id, **config.settings,
                         **question_metrics(prep, result, model)})
            if blocks:
                rows[-1]["block"] = result.context_block
    return rows


def default_chunk_size(n_questions: int, n_workers: int) -> int:
    """Return a chunk size giving each worker about eight chunks (for balance and progress)."""
    return max(1, min(250, math.ceil(n_questions / max(1, 8 * n_workers))))
