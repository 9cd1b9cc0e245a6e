"""Run a grid of configurations over an evaluation set: serially, or on Dask by question chunks.

Work is shared across configurations: each question's documents are retrieved once, and the
engine's ``BuildCache`` reuses token counts and duplicate detection across every configuration
over those documents. Chunks are pure functions of their questions, so a Dask run returns the
serial run's rows, row for row.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..build_cache import BuildCache
from ..curves.published import load_position_curves, position_curve
from ..errors import InvalidInputError
from ..progress import Progress
from .aggregate import Aggregator, RunReport
from .analysis import find_configuration
from .chunks import evaluate_chunk
from .grid import Configuration, expand_grid, parse_grid
from .metrics import METRIC_COLUMNS
from .options import RunOptions
from .report import Provenance, file_sha256, summary_document, utc_now
from .rows import EvalRow
from .sets import BundledCorpus, EvalSet, bundled_set_path, load_bundled_set, load_eval_set

__all__ = ["EvalResult", "RunPlan", "plan_run", "run_evaluation"]

# Questions per chunk of a serial run: how often its progress is reported.
_SERIAL_CHUNK = 10


@dataclass
class EvalResult:
    """Every row (one per question and configuration) of a run, and how it was made."""

    evalset: str
    #: What ``expected_accuracy`` reads: the published curve's model, or "<name> (measured curve)".
    curve_model: str
    top_k: int
    grid: dict[str, list[Any]]
    configs: list[Configuration]
    rows: list[EvalRow]
    questions: dict[str, str] = field(default_factory=dict)  # query_id -> query text
    #: Set when the rows were streamed to a file rather than kept (``evaluate_to_files``):
    #: ``Aggregator.report()`` of the rows.
    analysis: RunReport | None = None
    question_count: int | None = None
    row_count: int | None = None
    #: The configuration paired differences are taken against (None: the first).
    baseline: str | None = None
    #: Whether each row carries the block it was scored on (``results.csv``'s ``block`` column).
    blocks: bool = False
    #: What the summary records of how the run was made (version, set digest, time, files).
    provenance: Provenance = field(default_factory=lambda: Provenance())
    #: A measured run (``evaluation.measured``): the endpoint and model that answered (never a key),
    #: and the columns it adds to every row (``answer``, ``correct``, ...).
    endpoint: str | None = None
    answer_model: str | None = None
    extra_columns: tuple[str, ...] = ()
    #: How fast the model answered (a measured run: ``models.pace.RunPace``; None otherwise).
    pace: Any = None
    _reports: dict[tuple[int, str | None], RunReport] = field(default_factory=dict, repr=False, compare=False)

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
        return [
            "config",
            "query_id",
            "query",
            *self.grid_keys,
            *METRIC_COLUMNS,
            *self.extra_columns,
            *(["block"] if self.blocks else []),
        ]

    def report(self, *, seed: int = 0, baseline: str | None = None) -> RunReport:
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
        return self.report(seed=seed).configs

    def summary(self, *, seed: int = 0, baseline: str | None = None) -> dict[str, object]:
        """Return the whole run as the JSON ``--summary`` writes (``report.summary_document``)."""
        return summary_document(self, seed=seed, baseline=baseline)


def _serial_chunks(plan: RunPlan, progress: Progress | None) -> Iterator[list[EvalRow]]:
    questions, cache = plan.evalset.questions, BuildCache()
    for start in range(0, len(questions), _SERIAL_CHUNK):
        yield evaluate_chunk(
            questions[start : start + _SERIAL_CHUNK], plan.evalset.retriever, plan.configs, plan.options, cache
        )
        if progress is not None:
            progress(min(start + _SERIAL_CHUNK, len(questions)), len(questions))


@dataclass
class RunPlan:
    """A checked run: the questions, the configurations, the options (``RunOptions``) and the set's digest."""

    evalset: EvalSet
    grid: dict[str, list[Any]]
    configs: list[Configuration]
    options: RunOptions
    evalset_sha256: str | None = None
    #: What the set's loader said about it (rows it skipped, fields it read), for the user.
    notes: list[str] = field(default_factory=list)

    @property
    def curve_model(self) -> str:
        """Return what ``expected_accuracy`` reads: the published curve's model, or the measured curve's."""
        if self.options.curves is not None:
            name = f" {self.options.curve_name}" if self.options.curve_name else ""
            return f"{self.options.curves.models()[0]} (measured curve{name})"
        return self.options.curve_model

    def chunks(self, progress: Progress | None = None) -> Iterator[list[EvalRow]]:
        """Yield the rows chunk by chunk, in question order (serially or from Dask)."""
        if not self.options.on_dask:
            yield from _serial_chunks(self, progress)
            return
        from .cluster import dask_chunks

        yield from dask_chunks(self.evalset, self.configs, self.options, progress=progress)

    def result(self, rows: list[EvalRow], **extra: Any) -> EvalResult:
        """Return the ``EvalResult`` of this plan holding ``rows`` (with its baseline and provenance)."""
        from .. import __version__

        provenance = Provenance(contextlab_version=__version__, created=utc_now(), evalset_sha256=self.evalset_sha256)
        provenance.update(extra.get("provenance", {}))
        extra["provenance"] = provenance
        extra.setdefault("questions", {q.query_id: q.query for q in self.evalset.questions})
        return EvalResult(
            self.evalset.name,
            self.curve_model,
            self.options.top_k,
            self.grid,
            self.configs,
            rows,
            baseline=self.options.baseline,
            blocks=self.options.blocks,
            **extra,
        )

    def run(self, progress: Progress | None = None) -> EvalResult:
        """Return the rows of every question under every configuration, kept in memory."""
        return self.result([row for chunk in self.chunks(progress) for row in chunk])


def _load(evalset: EvalSet | str | Path | None, options: RunOptions) -> tuple[EvalSet, str | None]:
    """Return the set to run (a path is read with ``options.store`` and ``max_bytes``) and its file's digest."""
    if isinstance(evalset, EvalSet):
        return evalset, None
    if evalset is None:
        if options.store is not None:
            raise InvalidInputError(
                f"store {str(options.store)!r} is not used: the bundled set retrieves from its "
                "own passages; give an evaluation set whose questions have no documents",
                field="store",
            )
        bundled = load_bundled_set()
        return bundled, None
    loaded = load_eval_set(evalset, store=options.store, max_bytes=options.max_bytes)
    return loaded, file_sha256(Path(evalset).expanduser())


def plan_run(
    evalset: EvalSet | str | Path | None = None,
    grid: Sequence[str] | Mapping[str, Sequence[Any]] | None = None,
    options: RunOptions | None = None,
    *,
    evalset_sha256: str | None = None,
) -> RunPlan:
    """Return the checked plan of a run; every bad argument fails here, before any question runs.

    ``evalset`` is an ``EvalSet``, the path of a JSONL set (read as ``options`` say), or None
    for the bundled NaturalQuestions-Open set; ``grid`` is ``KEY=V1,V2`` specs or a mapping
    (``parse_grid``); ``options`` a ``RunOptions`` (the defaults when None). ``evalset_sha256``
    is the digest of the file an ``EvalSet`` was read from (a path's and the bundled set's are
    computed).
    """
    options = options or RunOptions()
    options = options.with_changes(curve_model=load_position_curves().resolve_model(options.curve_model))
    parsed = parse_grid(grid)
    configs = expand_grid(parsed, options.base)
    if options.curves is not None:  # placement "curve" follows the measured curve too
        curve = position_curve(options.curves.models()[0], data=options.curves)
        configs = [replace(c, position_curve=curve) for c in configs]
    loaded, digest = _load(evalset, options)
    digest = evalset_sha256 or digest
    if digest is None and isinstance(loaded.retriever, BundledCorpus):
        digest = file_sha256(loaded.retriever.path or bundled_set_path())
    if options.baseline is not None:
        options = options.with_changes(baseline=find_configuration(configs, options.baseline).label)
    return RunPlan(loaded.limited(options.limit), parsed, configs, options, digest, list(loaded.notes))


def run_evaluation(
    evalset: EvalSet | str | Path | None = None,
    grid: Sequence[str] | Mapping[str, Sequence[Any]] | None = None,
    options: RunOptions | None = None,
    *,
    progress: Progress | None = None,
    evalset_sha256: str | None = None,
) -> EvalResult:
    """Return the rows of every question of ``evalset`` under every configuration of ``grid``.

    ``plan_run`` checks the arguments; with ``options.workers`` the work runs on a local Dask
    cluster, with ``options.scheduler`` on an existing one; either way the rows equal the
    serial run's. The rows are kept in memory; ``evaluate_to_files`` streams them to disk.
    """
    return plan_run(evalset, grid, options, evalset_sha256=evalset_sha256).run(progress)
