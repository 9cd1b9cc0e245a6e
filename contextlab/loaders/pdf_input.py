"""PDF: the text layer of every page (pypdf), with the offset where each page starts.

Refused with one line naming the file and what to do: an encrypted PDF, a damaged one, one of more
than ``MAX_PDF_PAGES`` pages, one whose text passes the byte limit, and a scanned PDF with no text
layer (it needs OCR first).
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

from ..errors import LoadError
from .source_text import SourceText, missing_extra

if TYPE_CHECKING:
    from pypdf import PdfReader

__all__ = ["MAX_PDF_PAGES", "read_pdf"]

#: The most pages a PDF may have: a book-length file is split before it is read.
MAX_PDF_PAGES = 1000


def read_pdf(data: bytes, name: str, max_bytes: int) -> SourceText:
    """Return the text of the PDF ``data``, its pages separated by blank lines."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import FileNotDecryptedError
    except ImportError:
        raise missing_extra(name, "reading a PDF") from None
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings about odd files are not ours to print
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise LoadError(f"{name}: the PDF is encrypted with a password; save a copy without one and load that")
        count = len(reader.pages)
    except LoadError:
        raise
    except (FileNotDecryptedError, NotImplementedError):
        raise LoadError(f"{name}: the PDF is encrypted in a way that cannot be read; save a copy without it") from None
    except Exception as exc:  # a damaged file makes pypdf raise many kinds of error, not only PdfReadError
        raise _damaged(name, exc) from None
    if count > MAX_PDF_PAGES:
        raise LoadError(
            f"{name}: {count:,} pages, over the {MAX_PDF_PAGES:,}-page limit; split the PDF into parts and load those"
        )
    return _page_texts(reader, name, max_bytes)


def _page_texts(reader: PdfReader, name: str, max_bytes: int) -> SourceText:
    parts: list[str] = []
    pages: list[tuple[int, int]] = []
    offset = size = 0
    for number, page in enumerate(reader.pages, start=1):
        try:
            text = (page.extract_text() or "").replace("\x00", "").strip()
        except Exception as exc:  # pypdf raises many kinds on a damaged content stream
            raise _damaged(name, exc, number) from None
        if not text:
            continue
        size += len(text.encode("utf-8"))
        if size > max_bytes:
            raise LoadError(
                f"{name}: its text passes {max_bytes:,} bytes by page {number:,}; split the PDF or raise the "
                "limit (max_bytes=N)",
                field="max_bytes",
            )
        if parts:
            offset += 2  # the blank line between pages
        pages.append((offset, number))
        parts.append(text)
        offset += len(text)
    if not parts:
        raise LoadError(
            f"{name}: no text layer (a scanned PDF?); run OCR on it first (for example ocrmypdf) and load the result"
        )
    return SourceText(name, "\n\n".join(parts), tuple(pages))


def _damaged(name: str, exc: BaseException, page: int | None = None) -> LoadError:
    where = f" on page {page:,}" if page else ""
    detail = " ".join(str(exc).split())[:120] or type(exc).__name__
    return LoadError(f"{name}: not a readable PDF{where} ({detail}); open it and save or print it as a new PDF")
