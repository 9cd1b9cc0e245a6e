"""Run a grid of configurations over an evaluation set: serially, or on Dask by question chunks.

Work is shared across configurations: each question's documents are retrieved once, and the
engine's ``BuildCache`` reuses token counts and duplicate detection across every configuration
over those documents. Chunks are pure functions of their questions, so a Dask run returns the
serial run's rows, row for row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..curves.published import load_position_curves
from ..errors import InvalidInputError
from ..settings import DEFAULT_CURVE_MODEL, EngineSettings
from ..validation import whole_number
from .aggregate import Aggregator
from .analysis import find_configuration
from .chunks import CONNECT_TIMEOUT_S, default_chunk_size, evaluate_chunk, new_cache
from .grid import Configuration, expand_grid, parse_grid
from .metrics import METRIC_COLUMNS
from .report import file_sha256, summary_document, utc_now
from .sets import (
    BundledCorpus,
    EvalQuestion,
    EvalSet,
    bundled_set_path,
    load_bundled_set,
)

__all__ = ["EvalResult", "Progress", "RunPlan", "plan_run", "run_evaluation", "evaluate_chunk",
           "default_chunk_size", "DEFAULT_TOP_K", "CONNECT_TIMEOUT_S"]

DEFAULT_TOP_K = 20
#: Called with (questions done, questions in all) as the run advances.
Progress = Callable[[int, int], None]


@dataclass
class EvalResult:
    """Every row (one per question and configuration) of a run, and how it was made."""

    evalset: str
    model: str
    top_k: int
    grid: dict[str, list[Any]]
    configs: list[Configuration]
    rows: list[dict[str, Any]]
    questions: dict[str, str] = field(default_factory=dict)  # query_id -> query text
    #: Set when the rows were streamed to a file rather than kept (``evaluate_to_files``):
    #: ``Aggregator.report()`` of the rows.
    analysis: dict[str, Any] | None = None
    question_count: int | None = None
    row_count: int | None = None
    #: The configuration paired differences are taken against (None: the first).
    baseline: str | None = None
    #: Whether each row carries the block it was scored on (``results.csv``'s ``block`` column).
    blocks: bool = False
    #: What the summary records of how the run was made (version, set digest, time, files).
    provenance: dict[str, Any] = field(default_factory=dict)
    #: A measured run (``evaluation.measured``): the endpoint and model that answered (never a key),
    #: and the columns it adds to every row (``answer``, ``correct``, ...).
    endpoint: str | None = None
    answer_model: str | None = None
    extra_columns: tuple[str, ...] = ()
    #: How fast the model answered (a measured run: ``models.pace.RunPace``; None otherwise).
    pace: Any = None
    _reports: dict[tuple[int, str | None], dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_rows(self) -> int:
        """Return how many rows the run produced (kept in ``rows`` or streamed to a file)."""
        return self.row_count if self.row_count is not None else len(self.rows)

    @property
    def n_questions(self) -> int:
        """Return how many questions the run covered."""
        return self.question_count if self.question_count is not None else len(self.questions)

    @property
    def grid_keys(self) -> list[str]:
        """Return the grid's keys, in column order."""
        return list(self.grid)

    @property
    def columns(self) -> list[str]:
        """Return the ``results.csv`` columns: config, query_id, query, one per grid key, the metrics (and block)."""
        return ["config", "query_id", "query", *self.grid_keys, *METRIC_COLUMNS, *self.extra_columns,
                *(["block"] if self.blocks else [])]

    def report(self, *, seed: int = 0, baseline: str | None = None) -> dict[str, Any]:
        """Return the run's statistics (``Aggregator.report``): summaries, paired differences, recommendation.

        ``baseline`` (a configuration's label) overrides the run's own. Computed once per seed
        and baseline and kept: the rows of a finished run are not expected to change.
        """
        if self.analysis is not None:  # streamed to a file: the rows are gone, their report stays
            return self.analysis
        base = baseline or self.baseline
        # Bootstrapping takes seconds on a few thousand questions; the lab redraws often.
        if (seed, base) not in self._reports:
            self._reports[(seed, base)] = Aggregator(self.grid_keys).add(self.rows).report(seed=seed, baseline=base)
        return self._reports[(seed, base)]

    def summaries(self, *, seed: int = 0) -> list[dict[str, Any]]:
        """Return one aggregate per configuration with 95% intervals and paired differences (seeded)."""
        return self.report(seed=seed)["configs"]

    def summary(self, *, seed: int = 0, baseline: str | None = None) -> dict[str, Any]:
        """Return the whole run as the JSON ``--summary`` writes (``report.summary_document``)."""
        return summary_document(self, seed=seed, baseline=baseline)


def _chunks(items: Sequence[EvalQuestion], size: int) -> list[Sequence[EvalQuestion]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _serial_chunks(evalset: EvalSet, configs: list[Configuration], top_k: int, model: str,
                   progress: Progress | None, blocks: bool = False) -> Iterator[list[dict[str, Any]]]:
    total = len(evalset.questions)
    cache = new_cache()
    for done, chunk in enumerate(_chunks(evalset.questions, 10)):
        yield evaluate_chunk(chunk, evalset.retriever, configs, top_k, model, cache, blocks=blocks)
        if progress is not None:
            progress(min((done + 1) * 10, total), total)


@dataclass
class RunPlan:
    """A checked run: the questions, the configurations and where the work happens."""

    evalset: EvalSet
    grid: dict[str, list[Any]]
    configs: list[Configuration]
    top_k: int
    model: str
    workers: int | None = None
    scheduler: str | None = None
    chunk_size: int | None = None
    baseline: str | None = None
    blocks: bool = False
    evalset_sha256: str | None = None

    def chunks(self, progress: Progress | None = None) -> Iterator[list[dict[str, Any]]]:
        """Yield the rows chunk by chunk, in question order (serially or from Dask)."""
        if self.workers is None and self.scheduler is None:
            yield from _serial_chunks(self.evalset, self.configs, self.top_k, self.model, progress, self.blocks)
            return
        from .cluster import dask_chunks

        yield from dask_chunks(self.evalset, self.configs, self.top_k, self.model, workers=self.workers,
                               scheduler=self.scheduler, chunk_size=self.chunk_size, progress=progress,
                               blocks=self.blocks)

    def result(self, rows: list[dict[str, Any]], **extra: Any) -> EvalResult:
        """Return the ``EvalResult`` of this plan holding ``rows`` (with its baseline and provenance)."""
        from .. import __version__

        provenance = {"contextlab_version": __version__, "created": utc_now(), "evalset_sha256": self.evalset_sha256}
        extra["provenance"] = {**provenance, **extra.get("provenance", {})}
        return EvalResult(self.evalset.name, self.model, self.top_k, self.grid, self.configs, rows,
                          baseline=self.baseline, blocks=self.blocks, **extra)


def plan_run(
    evalset: EvalSet | None = None,
    grid: Sequence[str] | Mapping[str, Sequence[Any]] | None = None,
    *,
    top_k: int = DEFAULT_TOP_K,
    limit: int | None = None,
    model: str = DEFAULT_CURVE_MODEL,
    base: EngineSettings | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    chunk_size: int | None = None,
    baseline: str | None = None,
    blocks: bool = False,
    evalset_sha256: str | None = None,
) -> RunPlan:
    """Return the checked plan of a run (see ``run_evaluation``); every bad argument fails here.

    ``baseline`` names the configuration paired differences are taken against (its label, or
    ``KEY=V`` settings that pick one; None: the first); ``blocks`` keeps each row's block;
    ``evalset_sha256`` is the set file's digest (the bundled file's is computed).
    """
    whole_number("top_k", top_k, minimum=1)
    if limit is not None:
        whole_number("limit", limit, minimum=1)
    if workers is not None and scheduler is not None:
        raise InvalidInputError("give workers (a local cluster) or scheduler (an existing one), not both")
    if workers is not None:
        whole_number("workers", workers, minimum=1)
    if chunk_size is not None:
        whole_number("chunk_size", chunk_size, minimum=1)
    model = load_position_curves().resolve_model(model)
    parsed = parse_grid(grid)
    configs = expand_grid(parsed, base)
    evalset = evalset if evalset is not None else load_bundled_set()
    if evalset_sha256 is None and isinstance(evalset.retriever, BundledCorpus):
        evalset_sha256 = file_sha256(evalset.retriever.path or bundled_set_path())
    label = None if baseline is None else find_configuration(configs, baseline).label
    return RunPlan(evalset.limited(limit), parsed, configs, top_k, model, workers, scheduler, chunk_size,
                   label, bool(blocks), evalset_sha256)


def run_evaluation(
    evalset: EvalSet | None = None,
    grid: Sequence[str] | Mapping[str, Sequence[Any]] | None = None,
    *,
    progress: Progress | None = None,
    **options: Any,
) -> EvalResult:
    """Return the rows of every question of ``evalset`` under every configuration of ``grid``.

    ``evalset`` defaults to the bundled NaturalQuestions-Open set; ``grid`` is ``KEY=V1,V2``
    specs or a mapping (see ``parse_grid``); ``limit`` keeps the first N questions. With
    ``workers=N`` the work runs on a local Dask cluster of N processes, with ``scheduler``
    on an existing cluster; either way the rows equal the serial run's. The rows are kept in
    memory; ``evaluate_to_files`` streams them to disk instead. ``options`` are ``plan_run``'s
    keywords (``top_k``, ``limit``, ``model``, ``base``, ``workers``, ``scheduler``,
    ``chunk_size``, ``baseline``, ``blocks``, ``evalset_sha256``), checked there.
    """
    plan = plan_run(evalset, grid, **options)
    rows = [row for chunk in plan.chunks(progress) for row in chunk]
    return plan.result(rows, questions={q.query_id: q.query for q in plan.evalset.questions})
