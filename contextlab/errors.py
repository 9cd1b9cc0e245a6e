"""Exceptions raised by contextlab. Every bad-input error is also a ``ValueError``."""

from __future__ import annotations

__all__ = ["ContextLabError", "InvalidInputError", "BudgetError"]


class ContextLabError(Exception):
    """Base class of every error contextlab raises on purpose."""


class InvalidInputError(ContextLabError, ValueError):
    """An argument or a document field has a value contextlab cannot use."""


class BudgetError(InvalidInputError):
    """A token budget is too small for what must always fit (for example the query)."""
