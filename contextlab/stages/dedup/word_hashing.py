"""Words as 64-bit hashes, in numpy: what both dedup filters (shingles and word segments) read.

Each batch of texts is encoded once (a byte a character when all are ASCII, else UTF-16); the
words (``str.split``'s whitespace) are each hashed with a polynomial over their code units, then
scrambled with murmur3's finaliser. An ASCII character is the same number as a byte and as a
UTF-16 unit, so a word hashes the same in either batch. The C loop of ``_kernels.c`` does that
in one pass over the units where it is built; numpy computes the same hashes otherwise (the
words' edges, then one running sum).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__: list[str] = []  # the package's filters import the underscored helpers

try:  # built at install where a C compiler is found (optional: see pyproject.toml)
    from . import _kernels as KERNELS
except ImportError:
    KERNELS = None


def kernels():
    """Return the module of C loops (``_kernels.c``), or None where it was not built (numpy
    computes the same: tests set ``KERNELS`` to None to run that code)."""
    return KERNELS


# Texts are hashed in batches of about this many characters: a batch's arrays (about 1 MB
# each) stay in the processor's cache, which measured faster than batches 8 times as large.
_BATCH_CHARS = 1 << 17
# Odd multipliers (from splitmix64 / murmur3): the polynomial base for words, and one weight
# per word position of a shingle. Any odd constants work; these are well mixed.
_BASE = 0x9E3779B97F4A7C15
_WEIGHTS = (0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0xD6E8FEB86659FD93)


@lru_cache(maxsize=1)
def _inside_table() -> np.ndarray:
    """Return a lookup, by UTF-16 code unit, of the units inside a word (1) or not (0)."""
    import numpy as np

    return (~_space_table()).astype(np.uint8)


@lru_cache(maxsize=1)
def _space_table() -> np.ndarray:
    """Return a lookup, by UTF-16 code unit, of the characters ``str.split()`` splits on."""
    import numpy as np

    # Every character str.isspace() accepts lies in the Basic Multilingual Plane, and no
    # half of a surrogate pair is one of them, so code units decide word boundaries alone.
    table = np.zeros(1 << 16, dtype=bool)
    table[[c for c in range(1 << 16) if chr(c).isspace()]] = True
    return table


_POWERS: dict[str, tuple[np.ndarray, np.ndarray]] = {}
_MAX_KEPT_POWERS = 1 << 22


def _powers(length: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``_BASE**k`` and ``_BASE**-k`` modulo 2**64 for k < at least ``length``."""
    import numpy as np

    cached = _POWERS.get("base")
    if cached is None or len(cached[0]) < length:
        size = max(length, 2 * len(cached[0]) if cached else 1 << 16)
        up = np.full(size, _BASE, dtype=np.uint64)
        down = np.full(size, pow(_BASE, -1, 1 << 64), dtype=np.uint64)
        up[0] = down[0] = 1
        # Products wrap modulo 2**64, which is the arithmetic the hash is defined in.
        cached = (np.cumprod(up), np.cumprod(down))
        if size <= _MAX_KEPT_POWERS:  # one huge text must not pin its powers for good
            _POWERS["base"] = cached
    return cached


class _Scratch:
    """64-bit buffers reused by the batches of one call. A fresh megabyte array each batch
    cost a run of page faults (the allocator handed each freed one back to the kernel): on
    1,000 texts of 10,000 words, 285,000 faults and 0.7 s of kernel time in hashing alone."""

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}

    def take(self, size: int, name: str = "running", dtype: str = "uint64") -> np.ndarray:
        """Return buffer ``name`` of ``size`` values (its contents are whatever was left in it)."""
        import numpy as np

        buffer = self._buffers.get(name)
        if buffer is None or buffer.size < size:
            buffer = self._buffers[name] = np.empty(max(size, 1 << 18), dtype=dtype)
        return buffer[:size]


def _mix(x: np.ndarray) -> np.ndarray:
    """Return ``x`` (uint64, changed in place) scrambled by murmur3's 64-bit finaliser."""
    import numpy as np

    shift = np.uint64(33)
    x ^= x >> shift
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> shift
    x *= np.uint64(0xC4CEB9FE1A85EC53)
    x ^= x >> shift
    return x


def _code_units(texts: Sequence[str], ascii_lowered: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``texts`` lowercased as code units (bytes when all are ASCII, else UTF-16), and
    where each text starts and how many units it has. A space separates the texts and closes
    both ends, so no word spans two texts. Without ``ascii_lowered`` the ASCII texts are left as
    they are (the C loop reads their capitals as lowercase: all ``str.lower`` does to ASCII).

    A batch of ASCII texts (most are: CPython knows it of each string without reading it) is
    joined and encoded in one call each; others are lowercased text by text (a joined string
    that is not ASCII lowercases several times slower), then joined and encoded once unless a
    character needs two units.
    """
    import numpy as np

    if all(map(str.isascii, texts)):
        joined = " " + " ".join(texts) + " "
        data = (joined.lower() if ascii_lowered else joined).encode("ascii")
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        return np.frombuffer(data, dtype=np.uint8), np.cumsum(lengths + 1) - lengths, lengths
    lowered = [t.lower() for t in texts] if ascii_lowered else [t if t.isascii() else t.lower() for t in texts]
    joined = " " + " ".join(lowered) + " "
    data = joined.encode("utf-16-le", "surrogatepass")
    if len(data) == 2 * len(joined):  # no astral character: a text's units are its characters
        lengths = np.fromiter(map(len, lowered), dtype=np.int64, count=len(lowered))
        return np.frombuffer(data, dtype=np.uint16), np.cumsum(lengths + 1) - lengths, lengths
    encoded = [t.encode("utf-16-le", "surrogatepass") for t in lowered]
    gap = b" \x00"
    units = np.frombuffer(gap + gap.join(encoded) + gap, dtype=np.uint16)
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)) // 2
    return units, np.cumsum(lengths + 1) - lengths, lengths


def _inside(units: np.ndarray) -> np.ndarray:
    """Return which code units lie inside a word."""
    import numpy as np

    # Printable ASCII decides most units with one comparison; the table settles the rest
    # (control characters, U+0085 and above).
    inside = units > 32
    odd = np.flatnonzero((units < 9) | ((units > 13) & (units < 28)) | (units > 0x84))
    inside[odd] = ~_space_table()[units[odd]]
    return inside


def _words(units: np.ndarray, scratch: _Scratch, out: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Return the hash of every word of ``units`` (written to ``out`` by the C loop, when it
    has room) and where each starts."""
    import numpy as np

    if KERNELS is not None:
        most = len(units) // 2 + 1  # a word and a gap at least: units has at most this many words
        starts = scratch.take(most, "starts", "int64")
        words = out if out is not None and out.size >= most else np.empty(most, dtype=np.uint64)
        found = KERNELS.hash_words(units, units.itemsize, _inside_table(), words, starts)
        return words[:found], starts[:found]
    units = units.astype(np.uint16, copy=False)  # numpy's loops over bytes measured slower here
    inside = _inside(units)
    up, down = _powers(len(units))
    edges = np.flatnonzero(inside[1:] != inside[:-1]) + 1
    starts, ends = edges[0::2], edges[1::2]
    running = scratch.take(len(units))
    np.multiply(units, up[: len(units)], out=running)
    np.cumsum(running, out=running)
    words = running[ends - 1] - running[starts - 1]
    del running
    words *= down[starts]
    words += (ends - starts).astype(np.uint64) * np.uint64(_WEIGHTS[0])
    return _mix(words), starts


def _hash_words(
    texts: Sequence[str], spacing: bool = True, scratch: _Scratch | None = None, out: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the hash of every word of ``texts``, each text's word count, and a hash of each
    text's exact-duplicate key (its words in order, and, with ``spacing``, whether it starts
    or ends in space). The word hashes may be a view of ``out``, where the C loop wrote them.

    Words are those of ``text.lower().split()``. A word's hash is the polynomial
    sum(unit_k * B**k) over its code units (the C loop, or one running sum over the batch).
    """
    import numpy as np

    units, text_starts, lengths = _code_units(texts, ascii_lowered=KERNELS is None)
    words, starts = _words(units, scratch or _Scratch(), out)
    first = np.searchsorted(starts, text_starts)
    counts = np.diff(np.append(first, len(starts)))
    # The same running-sum trick over word hashes gives each text's word sequence a hash.
    up, down = _powers(len(units))
    running = np.concatenate((np.zeros(1, dtype=np.uint64), words * up[: len(words)]))
    np.cumsum(running, out=running)
    keys = (running[first + counts] - running[first]) * down[first]
    keys += counts.astype(np.uint64) * np.uint64(_WEIGHTS[1])
    if not spacing:
        return words, counts, _mix(keys)
    # An empty text reads its neighbouring gap: both flags stay off, as "" has no space.
    inside = _inside_table()
    spaced = ((inside[units[text_starts]] == 0) & (lengths > 0)).astype(np.uint64) << np.uint64(1)
    spaced |= (inside[units[text_starts + lengths - 1]] == 0) & (lengths > 0)
    keys += spaced * np.uint64(_WEIGHTS[2])
    return words, counts, _mix(keys)


def _batches(texts: Sequence[str]) -> list[tuple[int, int]]:
    """Return (start, stop) slices of ``texts`` of about ``_BATCH_CHARS`` characters each: a
    batch ends with the text that takes the characters so far past a multiple of it (or the
    last text), so a batch holds at least one text."""
    import numpy as np

    if not texts:
        return []
    ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
    stops = np.searchsorted(ends, np.arange(_BATCH_CHARS, int(ends[-1]) + 1, _BATCH_CHARS), "left") + 1
    stops = np.unique(np.append(stops, len(texts))).tolist()
    return list(zip([0, *stops[:-1]], stops, strict=False))
