"""Moved to ``contextlab.charts``; kept only until the CLI imports ``sweep_figure`` from there."""

from __future__ import annotations

from contextlab.charts.sweep import sweep_figure

__all__ = ["sweep_figure"]
