"""The one progress protocol and its bar: ``[#####.....] 120/300 questions 4.1 s``, redrawn in place.

Long runs (an evaluation grid, a sweep, a batch of model calls) report ``(done, total, note)``
to a ``Progress`` callable (``note`` optional: what else there is to say, e.g. the calls made
and cached); ``ProgressBar`` is that callable for a terminal, silent when the stream is not one
(a pipe, a log file), so output meant for a file never fills with carriage returns. The lab's
views pass a callable of the same shape that moves a Streamlit bar.
"""

from __future__ import annotations

import sys
import time
from typing import Protocol, TextIO

__all__ = ["Progress", "ProgressBar"]


class Progress(Protocol):
    """What a long run reports to as it advances: ``done`` of ``total``, and an optional ``note``."""

    def __call__(self, done: int, total: int, note: str = "") -> None: ...


class ProgressBar:
    """A one-line progress bar: ``[#####.....] 120/300 questions 4.1 s``; silent off a terminal.

    ``label`` names what is counted; ``note`` (given per call) is appended after the counts, e.g.
    ``"9 calls 3 cached  ETA 1m05s"``. Redraws at most ten times a second, and always at the end.
    """

    def __init__(
        self, stream: TextIO | None = None, *, width: int = 30, label: str = "questions", enabled: bool | None = None
    ) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.label = label
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.start = time.monotonic()
        self._last = -1.0

    def line(self, done: int, total: int, note: str = "") -> str:
        """Return the bar's text for ``done`` of ``total`` (without the carriage return)."""
        filled = min(self.width, int(self.width * done / total)) if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        extra = f"  {note}" if note else ""
        return f"[{bar}] {done}/{total} {self.label} {time.monotonic() - self.start:.1f} s{extra}"

    def __call__(self, done: int, total: int, note: str = "") -> None:
        """Redraw the bar; returns nothing."""
        if not self.enabled:
            return
        now = time.monotonic()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        end = "\n" if done >= total else ""
        self.stream.write("\r" + self.line(done, total, note) + end)
        self.stream.flush()

    def __repr__(self) -> str:
        return f"ProgressBar(label={self.label!r}, enabled={self.enabled})"
