"""Every exception contextlab raises on purpose. Each bad-input error is also a ``ValueError``."""

from __future__ import annotations

__all__ = ["ContextLabError", "InvalidInputError", "BudgetError", "LoadError", "StoreError"]


class ContextLabError(Exception):
    """Base class of every error contextlab raises on purpose."""


class InvalidInputError(ContextLabError, ValueError):
    """An argument or a document field has a value contextlab cannot use."""


class BudgetError(InvalidInputError):
    """A token budget is too small for what must always fit (for example the query)."""


class LoadError(InvalidInputError):
    """Input documents could not be read; the message names the file, the record and the fix."""


class StoreError(InvalidInputError):
    """A SQLite store file cannot be opened or used (not a database, or another schema)."""
