"""What a dedup pass returns, and the names of the measures it can use."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...types import DuplicatePair

__all__ = ["DedupOutcome", "DEFAULT_MEASURE", "SEED_MEASURE", "MEASURES"]

#: The default measure: word edit similarity of normalised texts.
DEFAULT_MEASURE = "word_edit"
#: Seed 000's measure: Jaccard similarity of 5-word shingles (seed-compatible mode).
SEED_MEASURE = "shingle_jaccard"
#: The measures ``find_duplicates`` (and ``ContextManager(dedup_measure=...)``) accept.
MEASURES = (DEFAULT_MEASURE, SEED_MEASURE)


@dataclass
class DedupOutcome:
    """Which positions of the input were kept, and a pair for each one dropped."""

    kept: list[int] = field(default_factory=list)
    pairs: list[DuplicatePair] = field(default_factory=list)
