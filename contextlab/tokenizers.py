"""Token counters behind one small protocol: the seed's heuristic and four exact vocabularies.

``get_tokenizer(name)`` takes a vocabulary ("cl100k_base", "o200k_base", "llama3", "qwen3"), the
"heuristic", or a model name. OpenAI names resolve through tiktoken's own model table, open models
(Llama 3, Qwen 2 / 2.5 / 3) through :data:`OPEN_MODELS`. Claude and Gemini publish no tokenizer:
their names give an :class:`EstimatedTokenizer`, whose name says "estimate" and the vocabulary it
counts in. The vocabularies ship in the ``quicktok-v1`` package (ids identical to tiktoken and the
models' own tokenizers), so nothing is downloaded at run time. Loading is lazy (first count) and
cached per process.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .errors import InvalidInputError
from .validation import message_value

if TYPE_CHECKING:
    import quicktok

__all__ = [
    "Tokenizer",
    "HeuristicTokenizer",
    "VocabularyTokenizer",
    "EstimatedTokenizer",
    "TokenizerChoice",
    "get_tokenizer",
    "resolve_tokenizer",
    "resolve_tokenizer_name",
    "check_tokenizer_name",
    "tokenizer_label",
    "count_many",
    "server_count_note",
    "model_vocabulary",
    "VOCABULARIES",
    "TOKENIZER_NAMES",
    "OPEN_MODELS",
    "ESTIMATED_MODELS",
    "MODEL_FAMILIES",
]

#: The exact vocabularies, offline. cl100k_base: GPT-4, GPT-3.5; o200k_base: GPT-4o, GPT-4.1, GPT-5,
#: the o-series; llama3: Llama 3, 3.1, 3.2, 3.3; qwen3: Qwen 2, 2.5, 3.
VOCABULARIES: tuple[str, ...] = ("cl100k_base", "o200k_base", "llama3", "qwen3")
#: Every tokenizer name that is not a model name.
TOKENIZER_NAMES: tuple[str, ...] = (*VOCABULARIES, "heuristic")

#: quicktok's name of each vocabulary (o200k_harmony, GPT-OSS's, is o200k_base's merges with other
#: special tokens; counted as plain text, its counts are o200k_base's).
_QUICKTOK_NAMES = {"cl100k_base": "cl100k_base", "o200k_base": "o200k_base", "llama3": "llama3", "qwen3": "qwen3"}
_SAME_COUNTS = {"o200k_harmony": "o200k_base"}

#: Open-model names (lowercased, hub prefix removed) -> their vocabulary. Llama 4 and Llama 2 use
#: other vocabularies and are deliberately absent.
OPEN_MODELS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(meta-)?llama-?3(?![0-9])"), "llama3"),
    (re.compile(r"^qwen-?(2|2\.5|3)(?![0-9])"), "qwen3"),
)
#: Model families that publish no tokenizer -> (family, the vocabulary the estimate counts in).
#: Claude's vocabulary is nearer cl100k_base's size, Gemini's nearer o200k_base's.
ESTIMATED_MODELS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"^claude"), "Claude", "cl100k_base"),
    (re.compile(r"^gemini"), "Gemini", "o200k_base"),
)
#: What an unknown name's message lists besides the vocabularies.
MODEL_FAMILIES = ", ".join(
    (
        "OpenAI (gpt-4o, gpt-4.1, gpt-5, o1, o3, gpt-4, gpt-3.5-turbo)",
        "Llama 3",
        "Qwen 2/2.5/3",
        "Claude and Gemini as an estimate",
    )
)

# Counting the same text twice is the common case in the lab (a slider moves, the documents
# stay), so counts are memoised. The bound keeps memory flat on huge inputs.
_COUNT_CACHE_SIZE = 200_000
# ...and by the characters its keys hold: an evaluation grid counts ~30k blocks of up to
# 20k characters per 1,000 questions, strings nothing else keeps alive.
_COUNT_CACHE_CHARS = 32_000_000
# Whole context blocks are counted once per build and rarely again: not worth the memory.
_MAX_MEMO_CHARS = 20_000


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


def _utf8_safe(text: str) -> str:
    """Return ``text`` with lone surrogates replaced by U+FFFD, as tiktoken does before it encodes."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class VocabularyTokenizer:
    """Exact token counts in one vocabulary (``VOCABULARIES``), special-token text read as plain text.

    Counts are memoised by text: the lab recounts the same documents on every slider move.
    """

    #: Each of the four pre-tokenizers never makes a piece holding a newline then a non-space, or a
    #: non-space then a space, so a block's count can be summed from its parts
    #: (``contextlab.stages.block_count``; ``tests/test_tokenizers_block_count.py`` checks all four).
    splits_at_line_and_word_starts = True

    def __init__(self, name: str) -> None:
        if name not in VOCABULARIES:
            raise InvalidInputError(
                f"unknown vocabulary {name!r}; choose one of: {', '.join(VOCABULARIES)}", field="tokenizer"
            )
        self.name = name
        self._encoding: quicktok.Tokenizer | None = None
        self._cache: dict[str, int] = {}
        self._cached_chars = 0
        self._lock = threading.Lock()

    @property
    def encoding(self) -> quicktok.Tokenizer:
        """The quicktok encoding, loaded from the package's bundled vocabulary on first use."""
        if self._encoding is None:
            import quicktok

            self._encoding = quicktok.get_encoding(_QUICKTOK_NAMES[self.name])
        return self._encoding

    def _count(self, text: str) -> int:
        try:
            return int(self.encoding.count(text))
        except (TypeError, UnicodeEncodeError):
            # A lone surrogate is not UTF-8: count it as the replacement character.
            return int(self.encoding.count(_utf8_safe(text)))

    def count(self, text: str) -> int:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        n = self._count(text)
        if len(text) <= _MAX_MEMO_CHARS:
            self._remember({text: n})
        return n

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Return the token count of each text, counting each unseen text once."""
        texts = list(texts)
        cache = self._cache
        # Read the known counts first: remembering the new ones may empty the memo.
        counts = {t: cache.get(t, -1) for t in dict.fromkeys(texts)}
        fresh = {t: self._count(t) for t, n in counts.items() if n < 0}
        if fresh:
            counts.update(fresh)
            self._remember({t: n for t, n in fresh.items() if len(t) <= _MAX_MEMO_CHARS})
        return [counts[t] for t in texts]

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
        try:
            return list(self.encoding.encode_ordinary(text))
        except (TypeError, UnicodeEncodeError):
            return list(self.encoding.encode_ordinary(_utf8_safe(text)))

    def decode(self, ids: Sequence[int]) -> str:
        """Return the text of ``ids`` (a cut inside a character decodes to U+FFFD)."""
        return str(self.encoding.decode(list(ids)))

    def truncate(self, text: str, max_tokens: int) -> str:
        if max_tokens <= 0:
            return ""
        ids = self.encode(text)
        if len(ids) <= max_tokens:
            return text
        # The first max_tokens ids decode to a prefix of the text, unless the vocabulary
        # normalised it first (qwen3 composes accents) or a cut split a character.
        guess = bytes(self.encoding.decode_bytes(ids[:max_tokens])).decode("utf-8", "ignore")
        if text.startswith(guess) and self._count(guess) <= max_tokens:
            return guess
        return self._longest_prefix(text, max_tokens)

    def _longest_prefix(self, text: str, max_tokens: int) -> str:
        """Return a prefix of ``text`` within ``max_tokens``, found by halving its length."""
        low, high = 0, len(text)  # count(text[:low]) <= max_tokens < count(text[:high])
        while high - low > 1:
            mid = (low + high) // 2
            if self._count(text[:mid]) <= max_tokens:
                low = mid
            else:
                high = mid
        return text[:low]

    def __repr__(self) -> str:
        return f"<VocabularyTokenizer {self.name!r}>"


class EstimatedTokenizer:
    """An estimate for a model that publishes no tokenizer: counts in a vocabulary it does not use.

    Its name says so ("Claude estimate (cl100k_base)"), so every figure shown with it does too.
    """

    splits_at_line_and_word_starts = True

    def __init__(self, family: str, vocabulary: VocabularyTokenizer) -> None:
        self.family = family
        self.vocabulary = vocabulary
        self.name = f"{family} estimate ({vocabulary.name})"

    def count(self, text: str) -> int:
        return self.vocabulary.count(text)

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Return the estimated token count of each text."""
        return self.vocabulary.count_many(texts)

    def truncate(self, text: str, max_tokens: int) -> str:
        return self.vocabulary.truncate(text, max_tokens)

    def __repr__(self) -> str:
        return f"<EstimatedTokenizer {self.name!r}>"


@dataclass(frozen=True)
class TokenizerChoice:
    """What a tokenizer name resolves to: the vocabulary it counts in, and whether exactly."""

    #: The name as given ("gpt-4o", "meta-llama/Llama-3.1-8B-Instruct", "cl100k_base").
    requested: str
    #: One of ``TOKENIZER_NAMES``.
    vocabulary: str
    #: The model family for an estimate ("Claude"), None when the count is the model's own.
    estimate_for: str | None = None

    @property
    def exact(self) -> bool:
        """True when the counts are the model's (or the vocabulary's) own tokens."""
        return self.estimate_for is None and self.vocabulary != "heuristic"

    @property
    def tokenizer_name(self) -> str:
        """The name of the tokenizer ``get_tokenizer`` returns for this choice."""
        if self.estimate_for is not None:
            return f"{self.estimate_for} estimate ({self.vocabulary})"
        return self.vocabulary


def _unknown(name: object, why: str = "") -> InvalidInputError:
    shown = message_value(name) if isinstance(name, str) else type(name).__name__
    return InvalidInputError(
        f"unknown tokenizer {shown}{why}; choose one of: {', '.join(TOKENIZER_NAMES)}, or a model name: "
        f"{MODEL_FAMILIES}",
        field="tokenizer",
    )


def _openai_vocabulary(model: str) -> str | None:
    """Return the vocabulary tiktoken's model table gives ``model``, or None when it has none."""
    import tiktoken.model

    try:
        encoding = tiktoken.model.encoding_name_for_model(model)
    except KeyError:
        return None
    return _SAME_COUNTS.get(encoding, encoding)


def resolve_tokenizer_name(name: object) -> TokenizerChoice:
    """Return what the tokenizer or model ``name`` counts in; raise ``InvalidInputError`` when unknown."""
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        raise _unknown(name)
    lowered = name.strip().lower()
    if lowered in TOKENIZER_NAMES:
        return TokenizerChoice(name, lowered)
    model = lowered.rsplit("/", 1)[-1]
    for pattern, vocabulary in OPEN_MODELS:
        if pattern.match(model):
            return TokenizerChoice(name, vocabulary)
    for pattern, family, vocabulary in ESTIMATED_MODELS:
        if pattern.match(model):
            return TokenizerChoice(name, vocabulary, estimate_for=family)
    encoding = _openai_vocabulary(model)
    if encoding is None:
        raise _unknown(name)
    if encoding not in VOCABULARIES:
        raise _unknown(name, f" (it counts in {encoding}, which is not shipped)")
    return TokenizerChoice(name, encoding)


def check_tokenizer_name(name: object) -> str:
    """Return ``name`` when it names a tokenizer or a known model; raise ``InvalidInputError`` otherwise."""
    return resolve_tokenizer_name(name).requested


def tokenizer_label(name: str) -> str:
    """Return how a figure counted with ``name`` is labelled: "o200k_base", "gpt-4o: o200k_base"."""
    choice = resolve_tokenizer_name(name)
    shown = choice.tokenizer_name
    if choice.requested.strip().lower() == shown.lower():
        return shown
    return f"{choice.requested}: {shown}"


_INSTANCES: dict[str, Tokenizer] = {}
_INSTANCES_LOCK = threading.Lock()


def get_tokenizer(name: str = "cl100k_base") -> Tokenizer:
    """Return the shared tokenizer for ``name``: a vocabulary, "heuristic", or a model name."""
    choice = resolve_tokenizer_name(name)
    key = choice.tokenizer_name
    with _INSTANCES_LOCK:
        tok = _INSTANCES.get(key)
        if tok is None:
            if choice.vocabulary == "heuristic":
                tok = HeuristicTokenizer()
            else:
                vocabulary = _INSTANCES.get(choice.vocabulary)
                if not isinstance(vocabulary, VocabularyTokenizer):
                    vocabulary = VocabularyTokenizer(choice.vocabulary)
                    _INSTANCES[choice.vocabulary] = vocabulary
                tok = vocabulary if choice.estimate_for is None else EstimatedTokenizer(choice.estimate_for, vocabulary)
            _INSTANCES[key] = tok
    return tok


def model_vocabulary(model: str | None) -> Tokenizer | None:
    """Return the exact tokenizer of model ``model`` when its name gives one, else None (never raises)."""
    if model is None:
        return None
    try:
        choice = resolve_tokenizer_name(model)
    except InvalidInputError:
        return None
    if not choice.exact or choice.requested.strip().lower() in TOKENIZER_NAMES:
        return None
    return get_tokenizer(model)


def resolve_tokenizer(tokenizer: str | Tokenizer) -> Tokenizer:
    """Return ``tokenizer`` itself, or the shared one it names."""
    if isinstance(tokenizer, str):
        return get_tokenizer(tokenizer)
    if not (callable(getattr(tokenizer, "count", None)) and callable(getattr(tokenizer, "truncate", None))):
        raise InvalidInputError(
            f"tokenizer must be a name ({', '.join(TOKENIZER_NAMES)}, or a model name) or an object with "
            f"count() and truncate(); got {type(tokenizer).__name__}",
            field="tokenizer",
        )
    return tokenizer


def count_many(tokenizer: Tokenizer, texts: Iterable[str]) -> list[int]:
    """Return token counts of ``texts``, batched when the tokenizer can batch."""
    batch = getattr(tokenizer, "count_many", None)
    if callable(batch):
        counts: list[int] = batch(texts)
        return counts
    return [tokenizer.count(t) for t in texts]


def server_count_note(server: int, ours: int, counted_with: str) -> str:
    """Return the sentence that sets a server's prompt-token count beside ours for the same prompts.

    The difference is in percent of the server's count; a server's count holds its chat template
    and special tokens (a BOS), which the prompt's text does not.
    """
    if server <= 0:
        return f"prompt tokens: the server reported none; contextlab counted {ours:,} with {counted_with}"
    difference = abs(ours - server) / server * 100
    said = (
        "the same count"
        if ours == server
        else f"{difference:.1f}% {'below' if ours < server else 'above'} the server's"
    )
    return (
        f"prompt tokens: the server counted {server:,}, contextlab {ours:,} with {counted_with} ({said}; "
        "a server also counts its template and special tokens)"
    )
