"""Documents in: pasted text, JSON, JSONL, CSV, TXT, Markdown, PDF, DOCX and HTML turned into ``Document`` lists.

Users bring what their retriever already dumps, so the usual field names are accepted:

- text: ``content``, ``text``, ``page_content`` (LangChain), ``node.text`` (LlamaIndex
  ``NodeWithScore`` dumps); a bare JSON string is a document too;
- ``score``; source: ``source``, ``metadata.source``, ``url``, ``file_name``;
  ``timestamp`` (epoch seconds or ISO 8601); ``importance``;
- every other field is kept in ``Document.metadata``.

Bad input is never a crash and never a silent loss: each problem is a ``LoadError`` (a
``ValueError``) that names the file, the line or record, and the fix. A NUL byte is refused
wherever it appears (``reading``). A document whose input had no score gets ``score=1.0`` and
``metadata["score_missing"] = True`` so a caller can score it
(``contextlab.retrieval.score_documents``).

One way through, each step once (``documents``): read within the byte limit in bounded blocks
(``reading``: a pipe or a device stops at the limit too) -> parse by kind: records (``json_input``,
``csv_input``, ``records``) or one text with spans (``text_input``; ``pdf_input``, ``docx_input``,
``html_input`` with the [files] extra, giving a ``source_text.SourceText``) -> chunks if asked
(``chunking``, ``sources``) -> documents. ``paths`` reads many files and folders at once. A new
format is a module beside them plus one branch in ``documents``.
"""

from __future__ import annotations

from ..errors import LoadError
from .documents import load_bytes, load_file, parse_pasted, read_set_fields
from .json_input import SetFields
from .paths import chunking_for, chunks_of, files_under, read_chunks, read_files
from .reading import DEFAULT_MAX_BYTES, DEFAULT_MAX_DOCUMENTS, SUPPORTED_EXTENSIONS, read_limited
from .records import SOURCE_FIELDS, TEXT_FIELDS, documents_from_records
from .sources import Chunking

__all__ = [
    "LoadError",
    "load_file",
    "load_bytes",
    "Chunking",
    "SetFields",
    "read_set_fields",
    "read_files",
    "read_chunks",
    "files_under",
    "chunking_for",
    "chunks_of",
    "parse_pasted",
    "documents_from_records",
    "read_limited",
    "SUPPORTED_EXTENSIONS",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DOCUMENTS",
    "TEXT_FIELDS",
    "SOURCE_FIELDS",
]
