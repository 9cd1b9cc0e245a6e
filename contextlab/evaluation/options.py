"""How a run over questions x configurations is made: one value, checked when it is made.

``RunOptions`` holds everything a run needs beyond its questions and its grid: how many
documents are retrieved, whose curve estimates ``expected_accuracy`` (a published one, or a
curve you measured), the settings the grid varies from, the baseline of the paired
differences, whether rows keep their blocks, where the work runs (here or on Dask), and how a
set file is read. ``plan_run``, ``run_evaluation``, ``evaluate_to_files``, ``plan_measured``,
the Dask chunks and the lab all take it instead of a long list of keywords.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..curves.curve_file import PositionData
from ..errors import InvalidInputError
from ..loaders.reading import DEFAULT_MAX_BYTES
from ..settings import DEFAULT_CURVE_MODEL, EngineSettings
from ..validation import message_value, text, whole_number

__all__ = ["DEFAULT_TOP_K", "RunOptions"]

#: Documents retrieved per question that has none of its own.
DEFAULT_TOP_K = 20


@dataclass(frozen=True)
class RunOptions:
    """Everything a run needs beyond its questions and grid (see the module doc); checked when made.

    ``curves`` is a curve you measured (``curves.curve_file.load_curve_file``): ``expected_accuracy``
    and placement "curve" read it instead of ``curve_model``'s published curve. ``store`` and
    ``max_bytes`` say how a set given as a path is read (questions without documents retrieve
    from ``store``); ``workers`` (a local Dask cluster) and ``scheduler`` (an existing one) move
    the work off this process, in ``chunk_size`` questions at a time.
    """

    top_k: int = DEFAULT_TOP_K
    limit: int | None = None
    curve_model: str = DEFAULT_CURVE_MODEL
    curves: PositionData | None = None
    #: What names ``curves`` in the run's label (its file's name): "Gemma (measured curve curve.csv)".
    curve_name: str = ""
    base: EngineSettings | None = None
    baseline: str | None = None
    blocks: bool = False
    workers: int | None = None
    scheduler: str | None = None
    chunk_size: int | None = None
    store: str | Path | None = None
    max_bytes: int = DEFAULT_MAX_BYTES

    def __post_init__(self) -> None:
        whole_number("top_k", self.top_k, minimum=1)
        for name in ("limit", "workers", "chunk_size"):
            if getattr(self, name) is not None:
                whole_number(name, getattr(self, name), minimum=1)
        whole_number("max_bytes", self.max_bytes, minimum=1)
        text("curve_model", self.curve_model)
        text("curve_name", self.curve_name)
        if self.workers is not None and self.scheduler is not None:
            raise InvalidInputError("give workers (a local cluster) or scheduler (an existing one), not both")
        if not isinstance(self.blocks, bool):
            raise InvalidInputError(f"blocks must be true or false, got {message_value(self.blocks)}", field="blocks")

    @property
    def on_dask(self) -> bool:
        """True when the run goes to a Dask cluster (``workers`` or ``scheduler``)."""
        return self.workers is not None or self.scheduler is not None

    def with_changes(self, **changes: Any) -> RunOptions:
        """Return a copy with ``changes`` applied (checked again)."""
        return replace(self, **changes) if changes else self
