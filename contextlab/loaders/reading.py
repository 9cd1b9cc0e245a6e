"""From bytes to text for every loader: limits, the format a name implies, decoding, NUL bytes.

One rule for NUL bytes, applied here for every format and at every offset: text cannot hold
them, so input that contains one is refused with a ``LoadError`` naming the file, the line and
the byte offset (a binary file usually trips it, or the UTF-8 check, on its first line). Known
binary formats (PDF, DOCX/ZIP, images, gzip) are recognised by their first bytes and named.

Line-by-line formats (JSON Lines, CSV) are read as a stream of lines (``iter_lines``), so a
large file is never held as bytes, as text and as a list of lines at once.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ..errors import LoadError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DOCUMENTS",
    "SUPPORTED_EXTENSIONS",
    "FORMATS",
    "FILE_KINDS",
    "check_limits",
    "too_big",
    "too_many",
    "too_big_decompressed",
    "quoted",
    "shortened",
    "a_folder",
    "format_for",
    "check_format",
    "decode",
    "iter_lines",
    "iter_blocks",
    "too_big_stream",
    "BLOCK_BYTES",
    "read_limited",
    "reject_nul",
    "normalise_newlines",
]

DEFAULT_MAX_BYTES = 20_000_000
DEFAULT_MAX_DOCUMENTS = 50_000

#: File name endings the loaders read, mapped to the format used for them.
SUPPORTED_EXTENSIONS: dict[str, str] = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": "txt",
    ".md": "md",
    ".markdown": "md",
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
}

#: Kinds read as one text with spans (the [files] extra reads PDF and DOCX; HTML needs it too).
FILE_KINDS = frozenset({"pdf", "docx", "html"})

#: Formats a caller may ask for by name ("auto" applies the pasted-text rules).
FORMATS: tuple[str, ...] = ("auto", "json", "jsonl", "csv", "txt", "md")

# First bytes of binary formats people try to load as documents, and what to call them.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "a PDF file"),
    (b"PK\x03\x04", "a ZIP archive (DOCX, XLSX and ODT files are ZIP archives)"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file (DOC, XLS)"),
)
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_SAVE_AS_TEXT = "save the documents as UTF-8 text, JSON, JSONL or CSV"


def check_limits(max_bytes: int, max_documents: int) -> None:
    """Return None when both limits are whole numbers >= 1; raise ``LoadError`` otherwise."""
    for label, value in (("max_bytes", max_bytes), ("max_documents", max_documents)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise LoadError(f"{label} must be a whole number >= 1, got {quoted(value)}")


#: The most characters of a user's value a message quotes: enough to recognise it.
QUOTE_LIMIT = 60


def shortened(text: str, limit: int = QUOTE_LIMIT) -> str:
    """Return ``text`` cut to ``limit`` characters with an ellipsis and its full length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """Return how a message quotes a user's value: its repr, cut to ``limit`` characters.

    Every loader message quotes values through here, so a 400-digit number or a pasted page
    never floods a one-line error.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * limit:
        # Say how big it is instead; str() refuses ints past 4,300 digits, so estimate those.
        if value.bit_length() < 14_000:
            return f"a {len(str(abs(value))):,}-digit whole number"
        return f"a whole number of about {int(value.bit_length() * 0.30103):,} digits"
    return shortened(repr(value), limit)


def a_folder(path: object) -> str:
    """Return the message for a path that is a folder where a documents file was expected."""
    return (
        f"{shortened(str(path))}: is a folder, not a documents file; folders are not read: "
        f"give the files in it instead (e.g. {shortened(str(path))}/*.md)"
    )


def too_big(name: str, size: int, max_bytes: int) -> str:
    """Return the message for an input over the byte limit, naming how to raise it."""
    return (
        f"{name} is {size:,} bytes, over the {max_bytes:,}-byte limit; split it into smaller "
        f"files or raise the limit (max_bytes=N)"
    )


def too_many(name: str, max_documents: int) -> str:
    """Return the message for an input over the document limit, naming how to raise it."""
    return f"{name} holds more than {max_documents:,} documents; split it or raise the limit (max_documents=N)"


def format_for(filename: str) -> str:
    """Return the format a file name's extension implies; raise ``LoadError`` for others."""
    suffix = Path(filename).suffix.lower()
    fmt = SUPPORTED_EXTENSIONS.get(suffix)
    if fmt is None:
        shown = f"'{suffix}'" if suffix else "no extension"
        raise LoadError(
            f"{filename}: unsupported file type ({shown}); use one of "
            f"{', '.join(SUPPORTED_EXTENSIONS)}, or paste the text instead"
        )
    return fmt


def check_format(fmt: object) -> str:
    """Return ``fmt`` when it names a format; raise ``LoadError`` listing the formats otherwise."""
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise LoadError(f"unknown input format {quoted(fmt)}; choose one of: {', '.join(FORMATS)}")
    return fmt


def normalise_newlines(text: str) -> str:
    """Return ``text`` with CRLF and lone CR line ends turned into LF."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def reject_nul(text: str, name: str, where: str = "") -> None:
    """Return None when ``text`` holds no NUL character; raise ``LoadError`` locating it otherwise.

    ``where`` names the record or field (``"line 3: field 'content'"``); without it the
    position is given as a line and column of ``text``.
    """
    at = text.find("\x00")
    if at < 0:
        return
    if not where:
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        where = f"line {line}, column {column}"
    raise LoadError(
        f"{name}: {where}: contains a NUL character (\\u0000) at position {at}; text cannot hold NUL bytes: remove them"
    )


def _nul_error(name: str, line: int, offset: int) -> LoadError:
    return LoadError(
        f"{name}: line {line}: NUL byte at offset {offset}; looks like a binary file (text "
        f"cannot hold NUL bytes); {_SAVE_AS_TEXT}"
    )


def _utf8_error(name: str, data: bytes, line: int, at: int, offset: int) -> LoadError:
    return LoadError(
        f"{name}: line {line}: byte 0x{data[at]:02x} at offset {offset} is not UTF-8; re-save "
        "the file as UTF-8 (binary formats such as PDF or DOCX are not supported)"
    )


def _check_magic(head: bytes, name: str) -> None:
    for magic, what in _MAGIC:
        if head.startswith(magic):
            raise LoadError(f"{name}: looks like a binary file ({what}), not text; export its text and {_SAVE_AS_TEXT}")


def _decode_utf16(data: bytes, name: str) -> str:
    try:
        text = data.decode("utf-16")
    except UnicodeDecodeError as exc:
        raise LoadError(f"{name}: starts with a UTF-16 mark but is not valid UTF-16 ({exc.reason})") from None
    reject_nul(text, name)
    return text


def _decode_utf8(raw: bytes, name: str, line: int = 1, offset: int = 0) -> str:
    """Return UTF-8 ``raw`` as text; ``raw`` starts at ``line`` and byte ``offset`` of the input.

    The first problem wins: a NUL byte before an invalid byte is reported as the NUL. Either
    is located by its line and its byte offset in the whole input.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        nul = raw.find(b"\x00", 0, exc.start)
        at = nul if nul >= 0 else exc.start
        where = line + raw.count(b"\n", 0, at)
        if nul >= 0:
            raise _nul_error(name, where, offset + nul) from None
        raise _utf8_error(name, raw, where, exc.start, offset + exc.start) from None
    if "\x00" in text:
        at = raw.index(b"\x00")
        raise _nul_error(name, line + raw.count(b"\n", 0, at), offset + at)
    return text


def decode(data: bytes, name: str) -> str:
    """Return ``data`` (UTF-8, or UTF-16 with a byte-order mark) as text with LF line ends.

    Raises ``LoadError`` for a known binary format, invalid UTF-8 or any NUL byte, each located.
    """
    _check_magic(data[:16], name)
    if data.startswith(_UTF16_BOMS):
        return normalise_newlines(_decode_utf16(data, name).lstrip("\ufeff"))
    return normalise_newlines(_decode_utf8(data, name).lstrip("\ufeff"))


def too_big_decompressed(name: str, max_bytes: int) -> str:
    """Return the message for compressed input that inflates past the byte limit."""
    return (
        f"{name}: decompresses to more than {max_bytes:,} bytes, over the {max_bytes:,}-byte "
        "limit (reading stopped there); split it or raise the limit (max_bytes=N)"
    )


def read_limited(stream: IO[bytes], name: str, max_bytes: int, expected: int = 0, *, compressed: bool = False) -> bytes:
    """Return everything left in ``stream``; raise ``LoadError`` once it passes ``max_bytes``.

    ``expected`` (e.g. the size ``stat`` gave) is read in one piece, so a file is not copied;
    what comes after it (a file still growing, a pipe) is read in bounded chunks. A buffered
    ``read(n)`` allocates ``n`` bytes up front, so ``max_bytes + 1`` is never asked for at once.
    ``compressed``: ``stream`` inflates what it reads (``gzip.GzipFile``), so the limit is on
    the decompressed size, and reading stops one byte past it.
    """
    chunks: list[bytes] = []
    total = 0
    want = min(max_bytes, expected) + 1
    while True:
        chunk = stream.read(min(want, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            message = too_big_decompressed(name, max_bytes) if compressed else too_big(name, total, max_bytes)
            raise LoadError(message, field="max_bytes")
        want = 1 << 22
    return b"".join(chunks)  # one chunk: returned as is, no copy


#: How much a stream is read at a time: bounded, so no single read outruns the byte limit.
BLOCK_BYTES = 1 << 20


def too_big_stream(name: str, max_bytes: int) -> str:
    """Return the message for a stream (a pipe, a device) that passed the byte limit while read."""
    return (
        f"{name} is more than {max_bytes:,} bytes, over the limit (reading stopped there); split it into "
        "smaller files or raise the limit (max_bytes=N)"
    )


def iter_blocks(stream: IO[bytes], name: str, max_bytes: int) -> Iterator[bytes]:
    """Yield what ``stream`` holds in blocks of at most ``BLOCK_BYTES``; raise once past ``max_bytes``.

    Works the same on a file, a pipe or a device (whose size ``stat`` reports as 0): never more
    than ``max_bytes + 1`` bytes are read, and never more than one block at once.
    """
    total = 0
    while True:
        block = stream.read(min(BLOCK_BYTES, max_bytes + 1 - total))
        if not block:
            return
        total += len(block)
        if total > max_bytes:
            raise LoadError(too_big_stream(name, max_bytes), field="max_bytes")
        yield block


def iter_lines(stream: IO[bytes], name: str, max_bytes: int) -> Iterator[str]:
    """Yield the text lines of a binary ``stream`` one at a time, each ending in ``"\\n"`` (but
    maybe the last), with the same checks as ``decode`` and the byte limit.

    The stream is read forward in bounded blocks (``iter_blocks``): a pipe works, and input without
    a newline (``/dev/zero``) stops at the limit. Lines are counted as ``decode`` counts them: CRLF
    and a lone CR both end a line.
    """
    blocks = iter_blocks(stream, name, max_bytes)
    head = b""
    for block in blocks:
        head += block
        if len(head) >= 16:
            break
    _check_magic(head[:16], name)
    if head.startswith(_UTF16_BOMS):
        # UTF-16's newline is two bytes: decode the whole input, then hand out its lines.
        data = head + b"".join(blocks)
        yield from io.StringIO(normalise_newlines(_decode_utf16(data, name).lstrip("\ufeff")))
        return
    yield from _lines_of_blocks(itertools.chain([head], blocks), name)


def _lines_of_blocks(blocks: Iterator[bytes], name: str) -> Iterator[str]:
    """Yield the decoded lines of UTF-8 ``blocks``; a line may span blocks (held until it ends)."""
    pending = b""
    number, offset = 1, 0
    for block in blocks:
        pending += block
        cut = pending.rfind(b"\n") + 1
        if cut == 0:
            continue
        whole, pending = pending[:cut], pending[cut:]
        for raw in whole.split(b"\n")[:-1]:
            line = raw + b"\n"
            yield from _decoded_line(line, name, number, offset)
            number, offset = number + 1, offset + len(line)
    if pending:
        yield from _decoded_line(pending, name, number, offset)


def _decoded_line(raw: bytes, name: str, number: int, offset: int) -> Iterator[str]:
    text = _decode_utf8(raw, name, number, offset)
    if number == 1:
        text = text.lstrip("\ufeff")
    if "\r" in text:
        yield from _split_keeping_ends(normalise_newlines(text))
    else:
        yield text


def _split_keeping_ends(text: str) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end
