"""The settings of a context experiment: which factor is varied, its levels, and how each is labelled.

Four kinds, each one factor of the context varied while the questions stay the same:

- ``length``: the answer passage at ``position`` among unrelated passages, up to each total of
  ``lengths`` context tokens (Context Rot's sweep);
- ``distractors``: the answer passage with each count of ``distractors`` passages that look like an
  answer but are not (``related``: the question's own other documents, then others retrieved for
  it) or unrelated ones (``random``), all placed at seeded random positions (The Power of Noise);
- ``orders``: the question's ``documents`` documents in ``orders`` seeded shuffles (how often a
  correct answer flips when only the order changes);
- ``abstain``: the same documents with the answer passage given, then removed (does the model say
  it does not know, or make an answer up).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import InvalidInputError
from ...validation import one_of, parse_int, whole_number

__all__ = [
    "ABSTAIN_LEVELS",
    "DISTRACTOR_KINDS",
    "KINDS",
    "ExperimentSettings",
    "parse_levels",
]

#: The factors an experiment varies (``contextlab curve --vary``; ``position`` is the position curve).
KINDS = ("length", "distractors", "orders", "abstain")
#: Where distractors come from: passages like the answer's (``related``) or unrelated ones (``random``).
DISTRACTOR_KINDS = ("related", "random")
#: The abstention levels: the answer passage given (1), then removed (0).
ABSTAIN_LEVELS = (1, 0)


def parse_levels(name: str, spec: str | Sequence[int], *, minimum: int) -> tuple[int, ...]:
    """Return the distinct whole numbers of ``spec`` (``"500,2000"`` or ints), each at least ``minimum``, sorted."""
    raw = [p for p in spec.split(",") if p.strip()] if isinstance(spec, str) else list(spec)
    values = [parse_int(p, field=name, low=minimum) if isinstance(p, str) else p for p in raw]
    for value in values:
        whole_number(name, value, minimum=minimum)
    if not values:
        raise InvalidInputError(f"{name} needs one value or more, such as 0,1,4; got {spec!r}", field=name)
    return tuple(sorted(dict.fromkeys(values)))


@dataclass(frozen=True)
class ExperimentSettings:
    """One experiment: the kind varied and every setting its prompts depend on (checked when made)."""

    kind: str
    lengths: tuple[int, ...] = (500, 2000, 8000)
    position: int = 1
    distractors: tuple[int, ...] = (0, 1, 4)
    distractor_kind: str = "related"
    orders: int = 3
    documents: int = 10
    seed: int = 0
    shots: int = 0
    limit: int = 100

    def __post_init__(self) -> None:
        one_of("kind", self.kind, KINDS)
        one_of("distractor_kind", self.distractor_kind, DISTRACTOR_KINDS)
        parse_levels("lengths", self.lengths, minimum=1)
        parse_levels("distractors", self.distractors, minimum=0)
        whole_number("orders", self.orders, minimum=2, maximum=50)
        whole_number("documents", self.documents, minimum=2, maximum=30)
        whole_number("position", self.position, minimum=1)
        whole_number("seed", self.seed, minimum=0)
        whole_number("shots", self.shots, minimum=0)
        whole_number("limit", self.limit, minimum=1)
        if self.kind == "abstain" and self.position > self.documents:
            raise InvalidInputError(
                f"position {self.position} is past the {self.documents} documents of each prompt", field="position"
            )

    @property
    def levels(self) -> tuple[int, ...]:
        """Return the levels measured, the reference (tested against every other) first."""
        if self.kind == "length":
            return parse_levels("lengths", self.lengths, minimum=1)
        if self.kind == "distractors":
            return parse_levels("distractors", self.distractors, minimum=0)
        if self.kind == "orders":
            return tuple(range(1, self.orders + 1))
        return ABSTAIN_LEVELS

    def label(self, level: int) -> str:
        """Return ``level`` in words: ``2000 tokens``, ``4 related distractors``, ``order 2``, ``answer removed``."""
        if self.kind == "length":
            return f"{level} tokens"
        if self.kind == "distractors":
            return f"{level} {self.distractor_kind} distractor{'s' if level != 1 else ''}"
        if self.kind == "orders":
            return f"order {level}"
        return "answer given" if level else "answer removed"

    @property
    def measure(self) -> str:
        """Return what the paired tests compare: accuracy, or (abstain) the share of answers that abstain."""
        return "abstained" if self.kind == "abstain" else "accuracy"
