"""Shared helpers for the view tests."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def module_hidden(name: str, hide: bool = True) -> Iterator[None]:
    """Make ``import name`` fail inside the block (a view must cope with a missing module)."""
    if not hide:
        yield
        return
    saved = sys.modules.get(name)
    sys.modules[name] = None  # type: ignore[assignment]  # import now raises ImportError
    try:
        yield
    finally:
        if saved is None:
            del sys.modules[name]
        else:
            sys.modules[name] = saved
