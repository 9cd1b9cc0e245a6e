"""Evaluation on labelled questions: sets, per-question metrics, grids, serial or Dask runs.

The public face is ``contextlab.evaluate``; this package holds its parts (``sets``, ``grid``,
``metrics``, ``run``, ``cluster``, ``output``).
"""

from __future__ import annotations

__all__: list[str] = []
