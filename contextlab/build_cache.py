"""``BuildCache``: what many builds over the same documents share (token counts, dedup outcomes)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from .stages.dedup import DEFAULT_MEASURE, DedupOutcome, find_duplicates
from .tokenizers import Tokenizer, count_many
from .validation import whole_number

__all__ = ["BuildCache"]


class BuildCache:
    """Remembers what a build computes that neither the budget nor the placement changes.

    An evaluation builds the same question's documents under many configurations; with one
    cache passed to every ``build(request, cache=...)`` each text is tokenized once per
    tokenizer and each ranked list is deduplicated once per threshold. It holds:

    - token counts per (tokenizer name, text): at most ``max_texts`` entries, emptied at once
      when full (tokenizers are told apart by name: give a custom one a name of its own);
    - dedup outcomes per (threshold, ranked texts): the ``max_outcomes`` most recently used.

    Results are identical with and without it. Thread-safe; outcomes it returns are shared,
    so callers must not change them.
    """

    def __init__(self, max_texts: int = 100_000, max_outcomes: int = 256) -> None:
        self.max_texts = whole_number("max_texts", max_texts, minimum=1)
        self.max_outcomes = whole_number("max_outcomes", max_outcomes, minimum=1)
        self._counts: dict[tuple[str, str], int] = {}
        self._outcomes: OrderedDict[tuple[float, str, tuple[str, ...]], DedupOutcome] = OrderedDict()
        self._lock = threading.Lock()
        self._stats = dict.fromkeys(("count_hits", "count_misses", "dedup_hits", "dedup_misses"), 0)

    def stats(self) -> dict[str, int]:
        """Return how many texts and dedup outcomes were found (hits) or computed (misses)."""
        with self._lock:
            return dict(self._stats)

    def token_counts(self, tokenizer: Tokenizer, texts: Sequence[str]) -> list[int]:
        """Return the token count of each text, counting only the texts not seen before."""
        name = tokenizer.name
        counts = self._counts
        with self._lock:
            known = {t: counts[(name, t)] for t in texts if (name, t) in counts}
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            fresh = count_many(tokenizer, missing)
            known.update(zip(missing, fresh, strict=False))
            with self._lock:
                if len(counts) + len(missing) > self.max_texts:
                    counts.clear()
                counts.update(zip(((name, t) for t in missing), fresh, strict=False))
        with self._lock:
            self._stats["count_hits"] += len(texts) - len(missing)
            self._stats["count_misses"] += len(missing)
        return [known[t] for t in texts]

    def duplicates(self, ranked_texts: Sequence[str], threshold: float, measure: str = DEFAULT_MEASURE) -> DedupOutcome:
        """Return ``find_duplicates(ranked_texts, threshold, measure)``, computed once per distinct input."""
        key = (float(threshold), measure, tuple(ranked_texts))
        with self._lock:
            outcome = self._outcomes.get(key)
            if outcome is not None:
                self._outcomes.move_to_end(key)
                self._stats["dedup_hits"] += 1
                return outcome
        outcome = find_duplicates(list(ranked_texts), threshold, measure)
        with self._lock:
            self._stats["dedup_misses"] += 1
            self._outcomes[key] = outcome
            while len(self._outcomes) > self.max_outcomes:
                self._outcomes.popitem(last=False)
        return outcome

    def clear(self) -> None:
        """Forget every count and outcome, and zero the tallies."""
        with self._lock:
            self._counts.clear()
            self._outcomes.clear()
            self._stats = dict.fromkeys(self._stats, 0)

    def __len__(self) -> int:
        return len(self._counts) + len(self._outcomes)

    def __repr__(self) -> str:
        return f"BuildCache({len(self._counts)} counts, {len(self._outcomes)} dedup outcomes)"
