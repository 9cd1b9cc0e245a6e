"""The numpy side of the seed measure's ``find_duplicates``: shingle tokens in one global
order, and the pairs of texts that prefix filtering leaves to compare.

No shingle is built as a Python object here. ``word_hashing`` hashes each batch's words in
numpy; five word hashes mix into a 64-bit shingle hash. One sort of (hash, text)
keys gives every shingle's document frequency; a second gives each text's shingles as
tokens in the global order, rarest first. From the prefixes of those token lists come the
candidate pairs, filtered by PPJoin's positional bound, and their exact token overlaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...errors import InvalidInputError
from .word_hashing import _WEIGHTS, _batches, _hash_words, _mix

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SHINGLE_SIZE", "Shingled", "shingle_texts", "near_pairs"]

SHINGLE_SIZE = 5
# Guard against t * |x| landing a hair above an integer through float rounding: a shorter
# ceil only lengthens the prefix, which is always safe.
_EPS = 1e-9
# Marks a short text's single shingle (fewer than five words) apart from five-word windows.
_SHORT_TAG = 0x2545F4914F6CDD1D
# A prefix token held by more prefixes than this is matched in the greedy pass, against kept
# texts only, rather than paired with every other holder up front.
_CROWD = 64
# Candidate pairs are made about this many at a time (a low threshold makes tens of millions).
_SLICE = 1 << 22


def _shingle_keys(words: np.ndarray, counts: np.ndarray, first_text: int, text_bits: int) -> np.ndarray:
    """Return a key for every shingle of a batch: its hash, low ``text_bits`` bits = its text.

    One sort of these keys groups equal shingles and, within a group, orders them by text.
    """
    import numpy as np

    begin = np.cumsum(counts) - counts
    windows = np.maximum(counts - (SHINGLE_SIZE - 1), 0)
    total = int(windows.sum())
    keys = np.zeros(total, dtype=np.uint64)
    if total:
        span = len(words) - (SHINGLE_SIZE - 1)
        mixed = words[:span] * np.uint64(_WEIGHTS[0])
        for k in range(1, SHINGLE_SIZE):
            mixed += words[k : k + span] * np.uint64(_WEIGHTS[k])
        at = np.arange(total) + np.repeat(begin - (np.cumsum(windows) - windows), windows)
        keys = _mix(mixed[at])
    owners = np.repeat(np.arange(first_text, first_text + len(counts), dtype=np.uint64), windows)
    short = np.flatnonzero((counts > 0) & (counts < SHINGLE_SIZE))
    if short.size:  # a text of one to four words is one shingle of all its words
        acc = counts[short].astype(np.uint64) * np.uint64(_SHORT_TAG)
        last = len(words) - 1
        for k in range(SHINGLE_SIZE - 1):
            term = words[np.minimum(begin[short] + k, last)] * np.uint64(_WEIGHTS[k])
            acc += np.where(counts[short] > k, term, np.uint64(0))
        keys = np.concatenate((keys, _mix(acc)))
        owners = np.concatenate((owners, short.astype(np.uint64) + np.uint64(first_text)))
    keys &= ~np.uint64((1 << text_bits) - 1)
    keys |= owners
    return keys


# -- the global order, the candidate pairs and the greedy pass ---------------------------------


@dataclass
class Shingled:
    """Every text's shingles as integer tokens in the global order (rarest first)."""

    tokens: np.ndarray  # uint64; text i's are tokens[offsets[i] : offsets[i] + sizes[i]]
    offsets: np.ndarray
    sizes: np.ndarray  # distinct shingles of each text
    singles: np.ndarray  # how many of them no other text has (they lead each text's tokens)
    number_bits: int  # a token's low bits number its shingle; the bits above, its frequency
    text_bits: int  # every token is below 2**(64 - text_bits)
    text_hashes: np.ndarray  # uint64, equal for texts with equal exact-duplicate keys


def shingle_texts(texts: Sequence[str]) -> Shingled:
    """Return the shingle tokens of ``texts``, each text's in the global order."""
    import numpy as np

    n = len(texts)
    text_bits = max(1, (n - 1).bit_length())
    # A text of c characters has at most (c + 1) // 2 words, so this bounds the shingles;
    # the pages past the real count are never touched, so they cost nothing.
    keys = np.empty((sum(map(len, texts)) + n) // 2, dtype=np.uint64)
    filled = 0
    text_hashes: list[np.ndarray] = []
    # One thread: a thread per core hashing batches measured slower on two shared cores, in
    # CPU, wall time and memory alike (python benchmarks/bench_dedup.py).
    for start, stop in _batches(texts):
        part, hashes = _hash_batch(texts[start:stop], start, text_bits)
        keys[filled : filled + part.size] = part
        filled += part.size
        text_hashes.append(hashes)
    tokens, sizes, singles, number_bits = _order_tokens(keys[:filled], n, text_bits)
    offsets = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(sizes)))
    return Shingled(tokens, offsets, sizes, singles, number_bits, text_bits, np.concatenate(text_hashes))


def _hash_batch(batch: Sequence[str], start: int, text_bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the shingle keys of a batch of texts (the first at position ``start``), and
    each text's exact-duplicate hash."""
    words, counts, text_hashes = _hash_words(batch)
    return _shingle_keys(words, counts, start, text_bits), text_hashes


def _order_tokens(keys: np.ndarray, n: int, text_bits: int):
    """Return (tokens, sizes, singles, number_bits) of ``n`` texts from their shingle keys.

    A shingle's number is the rank of its hash; its token adds its document frequency above
    the number's bits, so that sorting a text's tokens puts its shingles rarest first, the
    ones no other text has (``singles``) leading. ``keys`` is reused in place, and the
    passes over it run in blocks: fresh memory costs more to touch than the arithmetic.
    """
    import numpy as np

    if keys.size == 0:
        return keys, np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), 1
    keys.sort()
    size, block, bits = keys.size, 1 << 20, np.uint64(text_bits)
    again = np.zeros(size, dtype=bool)  # the same shingle in the same text as the key before
    fresh = np.ones(size, dtype=bool)  # a different shingle from the key before
    for lo in range(0, size - 1, block):
        hi = min(lo + block, size - 1)
        step = keys[lo + 1 : hi + 1] ^ keys[lo:hi]
        np.equal(step, 0, out=again[lo + 1 : hi + 1])
        step >>= bits
        np.not_equal(step, 0, out=fresh[lo + 1 : hi + 1])
    number_bits = max(1, (int(np.count_nonzero(fresh)) - 1).bit_length())
    frequency_bits = min(16, 64 - text_bits - number_bits)
    if frequency_bits < 2:
        raise InvalidInputError(
            "texts: too many distinct shingles to number in 64 bits; deduplicate fewer texts at a time"
        )
    # Each shingle's document frequency: its keys, less its repeats within one text.
    frequency = np.zeros(1 << number_bits, dtype=np.uint32)
    for lo, numbers in _numbered(fresh, block):
        distinct = numbers[~again[lo : lo + block]] - numbers[0]
        frequency[numbers[0] : numbers[-1] + 1] += np.bincount(
            distinct, minlength=int(numbers[-1] - numbers[0] + 1)
        ).astype(np.uint32)
    # A token is (frequency, shingle number): sorting a text's tokens puts its shingles
    # rarest first. Frequencies past the field's top share it: any one global order gives
    # the prefix filter its guarantee.
    np.minimum(frequency, (1 << frequency_bits) - 1, out=frequency)
    shift = np.uint64(64 - text_bits)
    for lo, numbers in _numbered(fresh, block):
        part = keys[lo : lo + block]
        part &= np.uint64((1 << text_bits) - 1)
        part <<= shift
        numbers = numbers.astype(np.uint64)
        part |= numbers
        part |= frequency[numbers].astype(np.uint64) << np.uint64(number_bits)
        part[again[lo : lo + block]] = np.uint64((1 << 64) - 1)  # repeats sort last, are cut off
    del fresh, frequency
    kept = size - int(np.count_nonzero(again))
    del again
    keys.sort()
    keys = keys[:kept]
    firsts = np.arange(n, dtype=np.uint64) << shift
    starts = np.searchsorted(keys, firsts)
    sizes = np.diff(np.append(starts, kept))
    singles = np.searchsorted(keys, firsts | np.uint64(2 << number_bits)) - starts
    keys &= np.uint64((1 << (64 - text_bits)) - 1)
    return keys, sizes, singles, number_bits


def _numbered(fresh: np.ndarray, block: int):
    """Yield (start, shingle number of each key) block by block; ``fresh`` marks new shingles."""
    import numpy as np

    done = 0
    for lo in range(0, fresh.size, block):
        numbers = np.cumsum(fresh[lo : lo + block], dtype=np.int64)
        numbers += done - 1
        done = int(numbers[-1]) + 1
        yield lo, numbers


def _prefix_entries(sh: Shingled, threshold: float):
    """Return (token, text, position) of every prefix token that can be shared, by token.

    Two sets with Jaccard >= t share a token within both prefixes (see the module doc);
    shingles no other text has lead each text's tokens and are left out.
    """
    import numpy as np

    sizes, singles = sh.sizes, sh.singles
    prefixes = sizes - np.ceil(threshold * sizes - _EPS).astype(np.int64) + 1
    lengths = np.where(sizes > 0, np.maximum(prefixes - singles, 0), 0)
    runs = np.cumsum(lengths) - lengths
    owners = np.repeat(np.arange(sizes.size), lengths)
    positions = np.arange(int(lengths.sum())) - np.repeat(runs - singles, lengths)
    entries = sh.tokens[sh.offsets[owners] + positions]
    # By token, then by text: a token fits below the text's bits (see _order_tokens).
    order = np.argsort((entries << np.uint64(sh.text_bits)) | owners.astype(np.uint64))
    return entries[order], owners[order], positions[order]


def _candidate_pairs(sh: Shingled, threshold: float):
    """Return texts (first < second) that may reach the threshold, and the crowded tokens.

    Pairs come from tokens in at most ``_CROWD`` prefixes. A token in more is left to the
    greedy pass, which looks it up among kept texts only (a thousand near copies of one
    text make one kept text, not half a million pairs); the pass gets (text, token) arrays.
    A pair is dropped when even its most optimistic overlap misses the threshold: the
    tokens it shares within both prefixes, plus what could follow the last of them
    (PPJoin's positional filter, Xiao et al. 2008).
    """
    import numpy as np

    entries, owners, positions = _prefix_entries(sh, threshold)
    total, n = entries.size, sh.sizes.size
    fresh = np.ones(total, dtype=bool)
    np.not_equal(entries[1:], entries[:-1], out=fresh[1:])
    starts = np.flatnonzero(fresh)
    group = np.diff(np.append(starts, total))
    crowded = np.repeat(group > _CROWD, group)
    after = np.repeat(starts + group - 1, group) - np.arange(total)  # later holders of a token
    after[crowded] = 0
    # Instances (two holders of one token) are made a slice of entries at a time and cut to
    # a row per pair at once, so memory follows the pairs rather than the instances.
    made, rows, lo = np.cumsum(after), [], 0
    while lo < total:
        hi = max(lo + 1, int(np.searchsorted(made, (made[lo - 1] if lo else 0) + _SLICE, "right")))
        rows.append(_pair_rows(owners, after, lo, hi, n))
        lo = hi
    pair, count, last_first, last_second = (
        (np.concatenate(c) for c in zip(*rows, strict=False)) if rows else (np.zeros(0, dtype=np.int64),) * 4
    )
    if pair.size == 0:
        return pair, pair, owners[crowded], entries[crowded]
    order = _by_pair(pair)  # rows of one pair stay in slice order, which is token order
    pair, count, last_first, last_second = pair[order], count[order], last_first[order], last_second[order]
    fresh = np.ones(pair.size, dtype=bool)
    fresh[1:] = pair[1:] != pair[:-1]
    starts = np.flatnonzero(fresh)
    lasts = np.append(starts[1:], pair.size) - 1
    a, b = pair[starts] // n, pair[starts] % n
    size_a, size_b = sh.sizes[a], sh.sizes[b]
    crowd = np.bincount(owners[crowded], minlength=n)
    bound = (
        np.add.reduceat(count, starts)
        + np.minimum(crowd[a], crowd[b])
        + np.minimum(size_a - positions[last_first[lasts]], size_b - positions[last_second[lasts]])
        - 1
    )
    keep = bound / (size_a + size_b - bound) >= threshold
    return a[keep], b[keep], owners[crowded], entries[crowded]


def _pair_rows(owners: np.ndarray, after: np.ndarray, lo: int, hi: int, n: int):
    """Return (pair, instances, last first entry, last second entry) for the instances that
    entries ``lo`` to ``hi`` start, one row per pair (a pair is ``a * n + b``, a < b)."""
    import numpy as np

    step = after[lo:hi]
    first = np.repeat(np.arange(lo, hi), step)
    second = first + 1 + np.arange(first.size) - np.repeat(np.cumsum(step) - step, step)
    pair = owners[first] * n + owners[second]
    if pair.size == 0:
        return pair, pair, pair, pair
    order = _by_pair(pair)  # a pair's instances stay in entry order, which is token order
    pair, first, second = pair[order], first[order], second[order]
    fresh = np.ones(pair.size, dtype=bool)
    fresh[1:] = pair[1:] != pair[:-1]
    starts = np.flatnonzero(fresh)
    lasts = np.append(starts[1:], pair.size) - 1
    return pair[starts], lasts - starts + 1, first[lasts], second[lasts]


def _by_pair(pair: np.ndarray) -> np.ndarray:
    """Return the order that sorts ``pair`` stably: one sort of packed keys when they fit."""
    import numpy as np

    place_bits = max(1, (pair.size - 1).bit_length())
    if int(pair.max()).bit_length() + place_bits <= 63:
        return np.sort((pair << place_bits) | np.arange(pair.size)) & ((1 << place_bits) - 1)
    return np.argsort(pair, kind="stable")


def _overlaps(sh: Shingled, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Return how many tokens texts ``first[k]`` and ``second[k]`` share, for every k.

    Both texts' tokens, tagged with the pair, go into one sorted array: a shared token is
    a value seen twice. Pairs go in batches of a few million tokens.
    """
    import numpy as np

    out = np.zeros(first.size, dtype=np.int64)
    cost = sh.sizes[first] + sh.sizes[second]
    step = max(1, (1 << 22) // max(1, int(cost.max(initial=1))))
    bits = np.uint64(sh.number_bits)
    low = np.uint64((1 << sh.number_bits) - 1)
    for lo in range(0, first.size, step):
        a, b = first[lo : lo + step], second[lo : lo + step]
        begins = np.stack((sh.offsets[a], sh.offsets[b]), axis=1).ravel()
        lengths = np.stack((sh.sizes[a], sh.sizes[b]), axis=1).ravel()
        runs = np.cumsum(lengths) - lengths
        values = sh.tokens[np.repeat(begins - runs, lengths) + np.arange(int(lengths.sum()))]
        values &= low
        values |= np.repeat(np.arange(a.size, dtype=np.uint64) << bits, cost[lo : lo + step])
        values.sort()
        twice = values[1:][values[1:] == values[:-1]] >> bits
        out[lo : lo + a.size] = np.bincount(twice.astype(np.intp), minlength=a.size)
    return out


def near_pairs(sh: Shingled, threshold: float) -> tuple[dict[int, list[tuple[int, float]]], dict[int, list[int]]]:
    """Return each text's earlier texts at or above the threshold, as (text, similarity) most
    similar first (the earliest on a tie), and each text's crowded prefix tokens, for the
    greedy pass to look up among kept texts.

    Similarities are |A ∩ B| / |A ∪ B| over shingle tokens, computed as the seed computes
    them (the same integers, the same division).
    """
    import numpy as np

    first, second, crowd_texts, crowd_tokens = _candidate_pairs(sh, threshold)
    inter = _overlaps(sh, first, second)
    sims = inter / (sh.sizes[first] + sh.sizes[second] - inter)
    good = np.flatnonzero(sims >= threshold)
    good = good[np.lexsort((first[good], -sims[good], second[good]))]  # most similar first
    earlier: dict[int, list[tuple[int, float]]] = {}
    for a, b, sim in zip(first[good].tolist(), second[good].tolist(), sims[good].tolist(), strict=False):
        earlier.setdefault(b, []).append((a, sim))
    crowds: dict[int, list[int]] = {}
    for i, token in zip(crowd_texts.tolist(), crowd_tokens.tolist(), strict=False):
        crowds.setdefault(i, []).append(token)
    return earlier, crowds
