"""The lab's views, one module each, and the registry the page draws its view switch from.

A view is a module with ``render(ctx: LabContext) -> None``. To add one, write
``views/<name>.py`` and add a line to ``VIEWS`` (the switch shows them in this order).
"""

from __future__ import annotations

from collections.abc import Callable

from ..context import LabContext
from . import budget, chunks, compare, duplicates, evaluate, final, learn, overview, placement, window

__all__ = ["VIEWS", "DEFAULT_VIEW", "View"]

View = Callable[[LabContext], None]

#: key (used in the URL: ?view=key) -> (label on the view switch, the view's render function)
VIEWS: dict[str, tuple[str, View]] = {
    "overview": ("Overview", overview.render),
    "duplicates": ("Duplicates", duplicates.render),
    "placement": ("Placement", placement.render),
    "budget": ("Budget", budget.render),
    "final": ("Final block", final.render),
    "compare": ("Compare", compare.render),
    "learn": ("Learn", learn.render),
    "window": ("Window", window.render),
    "chunks": ("Chunks", chunks.render),
    "evaluate": ("Evaluate", evaluate.render),
}
DEFAULT_VIEW = "overview"
