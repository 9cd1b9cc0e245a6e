"""DOCX: the paragraphs and tables of a Word file (python-docx), in the order they appear.

A DOCX is a ZIP archive: its members' sizes are checked before anything is inflated, so a zip
bomb is refused with one line, within the byte limit.
"""

from __future__ import annotations

import io
import zipfile
from typing import TYPE_CHECKING

from ..errors import LoadError
from .reading import too_big_decompressed
from .source_text import SourceText, missing_extra

if TYPE_CHECKING:
    from docx.table import Table

__all__ = ["read_docx"]

#: How many times its own size a DOCX may inflate to: real files stay far below this.
MAX_INFLATION = 200


def read_docx(data: bytes, name: str, max_bytes: int) -> SourceText:
    """Return the text of the DOCX ``data``: paragraphs, and table rows as cells joined by `` | ``."""
    try:
        import docx
        from docx.table import Table
    except ImportError:
        raise missing_extra(name, "reading a DOCX file") from None
    _check_archive(data, name, max_bytes)
    try:
        document = docx.Document(io.BytesIO(data))
        blocks: list[str] = []
        for item in document.iter_inner_content():
            if isinstance(item, Table):
                blocks.extend(_table_rows(item))
            elif item.text.strip():
                blocks.append(item.text.strip())
    except Exception as exc:  # python-docx raises many kinds of error on a damaged or foreign package
        detail = " ".join(str(exc).split())[:120] or type(exc).__name__
        raise LoadError(f"{name}: not a readable DOCX file ({detail}); open it in Word and save it again") from None
    text = "\n\n".join(blocks).replace("\x00", "")
    if not text.strip():
        raise LoadError(f"{name}: the document holds no text")
    return SourceText(name, text)


def _table_rows(table: Table) -> list[str]:
    rows = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            value = " ".join(cell.text.split())
            if value and (not cells or cells[-1] != value):  # a merged cell repeats its text
                cells.append(value)
        if cells:
            rows.append(" | ".join(cells))
    return rows


def _check_archive(data: bytes, name: str, max_bytes: int) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            inflated = sum(info.file_size for info in archive.infolist())
    except zipfile.BadZipFile:
        raise LoadError(f"{name}: not a DOCX file (not a ZIP archive); save it from Word as .docx") from None
    if inflated > max_bytes:
        raise LoadError(too_big_decompressed(name, max_bytes), field="max_bytes")
    if inflated > MAX_INFLATION * max(len(data), 1):
        raise LoadError(
            f"{name}: unpacks to {inflated:,} bytes from {len(data):,} (a ZIP bomb?); refused: save the "
            "document again from Word",
            field="max_bytes",
        )
