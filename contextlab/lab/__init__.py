"""What the lab and the CLI share, beside the engine: settings (``LabConfig``), the bundled
sample sets, the demo scenarios and the diff of two results. Not part of ``contextlab.__all__``."""

from __future__ import annotations

from .config import LabConfig

__all__ = ["LabConfig"]
