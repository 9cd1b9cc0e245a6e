"""HTML: the main text of a web page (trafilatura), without scripts, styles, navigation or footers.

The page is parsed once (lxml); script, style, navigation, header, footer, aside and form
elements are removed before trafilatura looks for the main text, so a short page whose main text
it cannot tell apart is still read without its menus. Where trafilatura finds nothing, the
remaining elements' text is the page's text, as it is for a page over ``MAX_EXTRACT_BYTES``.
"""

from __future__ import annotations

from ..errors import LoadError
from .source_text import SourceText, missing_extra

__all__ = ["read_html"]

#: The largest page whose main text trafilatura picks out (about a second a megabyte); a larger one
#: is read plainly, in linear time: every element's text but the skipped ones.
MAX_EXTRACT_BYTES = 2_000_000
_SKIPPED = ("script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "svg", "iframe")


def read_html(text: str, name: str) -> SourceText:
    """Return the main text of the page ``text`` (already decoded), one paragraph per line of it."""
    try:
        import lxml.html
        import trafilatura
    except ImportError:
        raise missing_extra(name, "reading an HTML page") from None
    try:
        tree = lxml.html.document_fromstring(text.encode("utf-8"))
    except (ValueError, lxml.etree.LxmlError) as exc:
        raise LoadError(f"{name}: not a readable HTML page ({exc}); save the page again from the browser") from None
    for element in tree.xpath("|".join(f"//{tag}" for tag in _SKIPPED) + "|//comment()"):
        element.drop_tree()
    main = None
    try:
        if len(text) <= MAX_EXTRACT_BYTES:
            main = trafilatura.extract(
                tree, include_tables=True, include_comments=False, include_links=False, deduplicate=False
            )
    except (ValueError, TypeError, RecursionError):
        pass  # a page its extractor chokes on: the plain reading below still gets its text
    if not main or not main.strip():
        main = "\n".join(tree.itertext())
    lines = (" ".join(line.split()) for line in main.replace("\x00", "").splitlines())
    cleaned = "\n\n".join(line for line in lines if line)
    if not cleaned:
        raise LoadError(f"{name}: the page holds no text (only markup or scripts); save the page's text instead")
    return SourceText(name, cleaned)
