"""The summary of a run as a document you can keep: what was run, on what, when, and what it showed.

``summary_document`` is what ``summary.json`` holds: the contextlab version, the set's name and
SHA-256, the settings, the curve's model and (when a model answered) its name and endpoint —
never a key —, the time, the number of questions, every configuration's aggregates with their
paired differences against the baseline, the recommendation and what extra budget buys.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypedDict

from ..curves.published import CITATION, CITATION_URL
from .aggregate import INTERVALS, RunReport
from .grid import Configuration
from .metrics import EXPECTED_ACCURACY_NOTE

__all__ = ["SUMMARY_FORMAT", "AnsweredBy", "Provenance", "ResultsFile", "file_sha256", "summary_document", "utc_now"]

#: The version of the summary's layout (1: aggregates only; 2: provenance, paired, recommendation).
SUMMARY_FORMAT = 2


def file_sha256(path: str | Path) -> str:
    """Return the SHA-256 (hex) of the file at ``path``, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def utc_now() -> str:
    """Return the time now in UTC as ISO 8601 to the second (``2026-12-01T09:30:00Z``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class ResultsFile(TypedDict):
    """Where a run's results CSV is, relative to its summary, and the SHA-256 it was written with."""

    path: str
    sha256: str


class Provenance(TypedDict, total=False):
    """How a run was made, as its summary records it (a measured run: the model's settings too)."""

    contextlab_version: str
    created: str
    evalset_sha256: str | None
    results_csv: ResultsFile
    answered_with: dict[str, object]


class AnsweredBy(TypedDict):
    """The endpoint and model that answered a measured run (never a key)."""

    endpoint: str
    model: str | None


class SummarizedRun(Protocol):
    """What a summary reads of a run (``run.EvalResult`` is one)."""

    @property
    def evalset(self) -> str: ...
    @property
    def curve_model(self) -> str: ...
    @property
    def top_k(self) -> int: ...
    @property
    def grid(self) -> Mapping[str, Sequence[object]]: ...
    @property
    def configs(self) -> Sequence[Configuration]: ...
    @property
    def endpoint(self) -> str | None: ...
    @property
    def answer_model(self) -> str | None: ...
    @property
    def provenance(self) -> Provenance: ...
    @property
    def n_questions(self) -> int: ...

    def report(self, *, seed: int = 0, baseline: str | None = None) -> RunReport: ...


def _base_settings(result: SummarizedRun) -> dict[str, object]:
    """Return the settings every configuration shares (the grid's keys vary and are left out)."""
    if not result.configs:
        return {}
    settings = result.configs[0].config.engine_settings().to_dict()
    return {k: v for k, v in settings.items() if k not in result.grid}


def _answer_model(result: SummarizedRun) -> AnsweredBy | None:
    """Return the model that answered and its endpoint (never a key), or None when none answered."""
    if not result.endpoint:
        return None
    return AnsweredBy(endpoint=result.endpoint, model=result.answer_model)


def summary_document(result: SummarizedRun, *, seed: int = 0, baseline: str | None = None) -> dict[str, object]:
    """Return the whole run as the JSON ``--summary`` writes.

    ``baseline`` (a configuration's label) overrides the run's own for the paired differences.
    """
    report = result.report(seed=seed, baseline=baseline)
    provenance = result.provenance
    return {
        "contextlab_eval": SUMMARY_FORMAT,
        "contextlab_version": provenance.get("contextlab_version"),
        "created": provenance.get("created"),
        "evalset": result.evalset,
        "evalset_sha256": provenance.get("evalset_sha256"),
        "questions": result.n_questions,
        "curve_model": result.curve_model,
        "answered_by": _answer_model(result),
        "top_k": result.top_k,
        "grid": result.grid,
        "settings": _base_settings(result),
        "results_csv": provenance.get("results_csv"),
        "intervals": {**INTERVALS, "seed": seed},
        "baseline": report.baseline,
        "recommendation": report.recommendation.to_dict(),
        "budget_gains": report.budget_gains,
        "expected_accuracy_note": EXPECTED_ACCURACY_NOTE,
        "citation": CITATION,
        "citation_url": CITATION_URL,
        "configs": report.configs,
    }
