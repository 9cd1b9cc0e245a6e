"""contextlab: turn retrieved documents into a traced, budgeted, citation-labelled context block.

This module is the public API; everything listed in ``__all__`` is stable. Importing it never
loads streamlit or plotly (those are the lab's, under ``contextlab.ui``). Lab support
(``LabConfig``, sample sets, scenarios) lives in ``contextlab.lab``, outside this API.
"""

from __future__ import annotations

from .errors import (
    BudgetError,
    ContextLabError,
    InvalidInputError,
    LoadError,
    StoreError,
)
from .loaders import load_bytes, load_file, parse_pasted, read_files
from .loaders.chunking import Chunk, chunk_text
from .manager import ContextManager
from .retrieval import (
    ContextConfig,
    MemoryBackend,
    RetrievalResult,
    SQLiteBackend,
    build_context_message,
    format_context,
    inject_context,
    score_documents,
)
from .settings import EngineSettings
from .stages.messages import format_memory
from .tokenizers import Tokenizer, get_tokenizer
from .types import (
    ContextResult,
    DocTrace,
    Document,
    DuplicatePair,
    Message,
    PromptRequest,
)
from .window.assembly import assemble_prompt
from .window.layout import AssembledPrompt, WindowBudget
from .window.memory import fit_history
from .window.ranking import HybridRanking

__all__ = [
    # the engine
    "ContextManager",
    "EngineSettings",
    "Document",
    "Message",
    "PromptRequest",
    "ContextResult",
    "DocTrace",
    "DuplicatePair",
    "Tokenizer",
    "get_tokenizer",
    # the whole window (seed 002)
    "WindowBudget",
    "HybridRanking",
    "assemble_prompt",
    "AssembledPrompt",
    "format_memory",
    "fit_history",
    # retrieval and injection (seed 003)
    "ContextConfig",
    "RetrievalResult",
    "MemoryBackend",
    "SQLiteBackend",
    "format_context",
    "build_context_message",
    "inject_context",
    "score_documents",
    # documents in
    "load_file",
    "load_bytes",
    "parse_pasted",
    "Chunk",
    "chunk_text",
    "read_files",
    # errors
    "ContextLabError",
    "InvalidInputError",
    "BudgetError",
    "LoadError",
    "StoreError",
]

__version__ = "0.1.0"
