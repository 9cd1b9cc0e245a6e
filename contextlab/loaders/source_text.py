"""A file's text with where each part came from (pages of a PDF), and the [files] extra's message.

Every reader of a file kind (PDF, DOCX, HTML) returns a ``SourceText``: the text once, and the
offsets where its pages start, so a chunk can say "report.pdf p. 2".
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import LoadError

__all__ = ["SourceText", "missing_extra", "INSTALL_FILES"]

#: What a user runs to read PDF, DOCX and HTML files.
INSTALL_FILES = "pip install 'contextlab[files]'"


@dataclass(frozen=True)
class SourceText:
    """The text of one file, and ``pages``: (start offset, 1-based page number) in offset order."""

    name: str
    text: str
    pages: tuple[tuple[int, int], ...] = ()

    def page_at(self, offset: int) -> int | None:
        """Return the page that holds ``offset``, or None when the file has no pages."""
        page = None
        for start, number in self.pages:
            if start > offset:
                break
            page = number
        return page


def missing_extra(name: str, what: str) -> LoadError:
    """Return the error for input ``name`` when ``what`` ("reading a PDF") needs the [files] extra."""
    return LoadError(f"{name}: {what} needs the files extra; install it with {INSTALL_FILES}")
