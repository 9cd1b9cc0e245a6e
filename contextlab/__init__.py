"""contextlab: turn retrieved documents into a traced, budgeted, citation-labelled context block.

This module is the public API; everything listed in ``__all__`` is stable.
"""

from __future__ import annotations

from .errors import BudgetError, ContextLabError, InvalidInputError
from .manager import ContextManager
from .tokenizers import Tokenizer, get_tokenizer
from .types import ContextResult, DocTrace, Document, DuplicatePair, Message, PromptRequest

__all__ = [
    "ContextManager",
    "Document",
    "Message",
    "PromptRequest",
    "ContextResult",
    "DocTrace",
    "DuplicatePair",
    "Tokenizer",
    "get_tokenizer",
    "ContextLabError",
    "InvalidInputError",
    "BudgetError",
]

__version__ = "0.1.0"

