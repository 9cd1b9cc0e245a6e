"""One build as a self-contained HTML report: the block coloured by source, every document's fate and why.

``html_report(result, config, documents)`` returns one HTML page as a string: styles inline in
the page, nothing loaded from the network, no script (it reads the same in any browser, mail
client or archive). Every piece of user text (query, sources, contents, reasons) goes through
``visible_controls`` (bidi and other control characters shown as ``⟨U+202E⟩``, so they cannot
reorder the page) and then ``html.escape``: a source such as ``<script>`` shows as typed.
The CLI (``contextlab build --out report.html``) and the lab's Final block view only call it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ..safe_text import visible_controls
from ..settings import EngineSettings
from ..types import ContextResult, DocTrace, Document

__all__ = ["html_report", "SOURCE_COLORS"]

#: Background tints for the block's sources, in order of first appearance (dark text reads on each).
SOURCE_COLORS: tuple[str, ...] = (
    "#dbe9ff",
    "#ffe3c2",
    "#d6f5e3",
    "#f9d9e5",
    "#e8defc",
    "#fff4bf",
    "#d3f1f7",
    "#eadfd3",
)

_STYLE = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;margin:2rem auto;max-width:70rem;
padding:0 1rem}
h1{font-size:1.6rem;margin:0 0 .5rem}h2{font-size:1.2rem;margin:2rem 0 .5rem}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top;unicode-bidi:isolate}
th{background:#f6f8fa}
.query{background:#f6f8fa;border-left:4px solid #57606a;padding:.5rem .75rem;white-space:pre-wrap;
unicode-bidi:isolate}
.block{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre-wrap;overflow-wrap:anywhere;
border:1px solid #d0d7de;padding:.75rem;unicode-bidi:isolate}
.block mark{color:inherit;border-radius:2px}
.header{color:#57606a}
.swatch{display:inline-block;width:.9em;height:.9em;border:1px solid #8c959f;vertical-align:-.1em;margin-right:.3em}
.muted{color:#57606a}
"""


def _text(value: object) -> str:
    """Return user text as HTML text: controls shown visibly, then every markup character escaped."""
    return html.escape(visible_controls(str(value)), quote=True)


def _source_name(trace: DocTrace) -> str:
    return trace.source if trace.source is not None else f"doc_{trace.input_index}"


def _source_colors(result: ContextResult) -> dict[str, str]:
    """Return a tint per source of the block, in block order (sources beyond the palette reuse it)."""
    colors: dict[str, str] = {}
    for trace in sorted((t for t in result.trace if t.position is not None), key=lambda t: t.position or 0):
        name = _source_name(trace)
        if name not in colors:
            colors[name] = SOURCE_COLORS[len(colors) % len(SOURCE_COLORS)]
    return colors


def _block_html(result: ContextResult, colors: dict[str, str]) -> str:
    """Return the block's exact text as HTML, each document's text marked in its source's tint.

    Each document's kept text is found in the block in order; what lies between (headers,
    separators) is shown as is, in grey. Text not found (a formatter that changed it) stays unmarked.
    """
    block = result.context_block
    placed = sorted((t for t in result.trace if t.position is not None), key=lambda t: t.position or 0)
    parts: list[str] = []
    cursor = 0
    for trace, doc in zip(placed, result.included_docs, strict=False):
        start = block.find(doc.content, cursor) if doc.content else -1
        if start < 0:
            continue
        parts.append(f'<span class="header">{_text(block[cursor:start])}</span>')
        color = colors[_source_name(trace)]
        title = _text(f"[{trace.position}] {_source_name(trace)}")
        parts.append(f'<mark style="background:{color}" title="{title}">{_text(doc.content)}</mark>')
        cursor = start + len(doc.content)
    parts.append(f'<span class="header">{_text(block[cursor:])}</span>')
    return "".join(parts)


def _legend(colors: dict[str, str]) -> str:
    items = "".join(
        f'<li><span class="swatch" style="background:{color}"></span>{_text(name)}</li>'
        for name, color in colors.items()
    )
    return f"<ul>{items}</ul>" if items else '<p class="muted">No document is in the block.</p>'


def _fates_table(result: ContextResult) -> str:
    """Return one row per input document: its fate, place, tokens and the trace's reason."""
    head = "".join(
        f"<th>{name}</th>" for name in ("doc", "source", "score", "rank", "fate", "pos", "text tokens", "why")
    )
    rows = []
    for t in sorted(result.trace, key=lambda t: t.input_index):
        cells = (
            f"D{t.input_index}",
            _source_name(t),
            f"{t.score:.3g}",
            "" if t.relevance_rank is None else str(t.relevance_rank),
            t.fate,
            "" if t.position is None else str(t.position),
            str(t.tokens),
            t.reason,
        )
        rows.append("<tr>" + "".join(f"<td>{_text(c)}</td>" for c in cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _settings_table(config: EngineSettings) -> str:
    rows = "".join(
        f"<tr><th>{_text(name)}</th><td>{_text(value)}</td></tr>"
        for name, value in config.engine_settings().to_dict().items()
    )
    return f"<table><tbody>{rows}</tbody></table>"


def html_report(
    result: ContextResult,
    config: EngineSettings,
    documents: Sequence[Document],
    *,
    query: str = "",
    title: str = "contextlab report",
) -> str:
    """Return one self-contained HTML page on ``result``: query, settings, the coloured block, every fate and why.

    ``documents`` are the build's input (counted in the summary); ``query`` is the question the
    block was built for (a ``LabConfig``'s own query when empty and ``config`` has one).
    """
    asked = query or str(getattr(config, "query", ""))
    colors = _source_colors(result)
    in_block = sum(1 for t in result.trace if t.position is not None)
    summary = (
        f"{len(documents)} documents in, {in_block} in the block: {result.tokens_used:,} of "
        f"{result.tokens_budget:,} tokens ({result.tokenizer})."
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_text(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{_text(title)}</h1><p>{_text(summary)}</p>"
        f'<h2>Query</h2><div class="query">{_text(asked) if asked else "<span class=muted>(no query)</span>"}</div>'
        f"<h2>The block, coloured by source</h2>{_legend(colors)}"
        f'<div class="block">{_block_html(result, colors)}</div>'
        f"<h2>Every document: where it went and why</h2>{_fates_table(result)}"
        f"<h2>Settings</h2>{_settings_table(config)}"
        "</body></html>\n"
    )
