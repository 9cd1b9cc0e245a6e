"""Ready-made stories for demos and teaching: a sample set, a configuration, a view to open.

Each scenario opens the lab on one effect worth showing a stakeholder — the budget cutting the
second-best document, duplicates eating the budget, an answer lost in the middle — and, when
the effect is a difference, the configuration to compare against. ``tests/test_scenarios.py``
builds every scenario with the engine and checks that its story really shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ..errors import InvalidInputError
from ..types import ContextResult, DocTrace
from .config import LabConfig
from .samples import SampleSet, load_sample_set

__all__ = ["Scenario", "all_scenarios", "get_scenario", "scenario_keys"]


@dataclass(frozen=True)
class Scenario:
    """One story: load ``sample_set``, apply ``config``, open ``view``, maybe compare.

    ``view`` is the lab view to open ("compare", "duplicates", "placement", ...);
    ``compare_with`` is configuration B for the Compare view (None when there is nothing to
    compare). ``config.query`` is the sample set's own query. ``punchline`` gives the one
    sentence a room should remember, with the numbers of the builds the lab shows.
    """

    key: str
    title: str
    story: str
    sample_set: str
    config: LabConfig
    view: str
    compare_with: LabConfig | None = None

    def load(self) -> SampleSet:
        """Return the scenario's ``SampleSet`` (documents, query, system prompt, conversation)."""
        return load_sample_set(self.sample_set)

    def punchline(self, a: ContextResult, b: ContextResult | None = None) -> str:
        """Return the sentence to remember, with the numbers of build ``a`` (and ``b``, under ``compare_with``)."""
        answer = self.load().answer_indices()
        entry_a = next((t for t in a.trace if t.input_index in answer), None)
        entry_b = next((t for t in b.trace if t.input_index in answer), None) if b is not None else None
        if entry_a is None:
            return ""
        return _PUNCHLINES[self.key](a, entry_a, entry_b)


def _query(sample_set: str) -> str:
    return load_sample_set(sample_set).query


@cache
def all_scenarios() -> tuple[Scenario, ...]:
    """Return every ready-made scenario, in picker order (built on first use: they read sample sets)."""
    return tuple(_build())


def _build() -> list[Scenario]:
    second_best = LabConfig(query=_query("eng_postmortems"), max_context_tokens=1000)
    faq = LabConfig(query=_query("support_faq"), max_context_tokens=1024)
    middle = LabConfig(query=_query("clinical_abstracts"), max_context_tokens=2400, placement="relevance")
    return [
        Scenario(
            key="second_best_cut",
            title="The budget cuts your second-best document",
            story=(
                "The original engine reorders first and applies the budget second, so the "
                "second most relevant document — just moved to the very end — is the first one "
                "the budget throws away. Here that document is the postmortem that answers the "
                "question. contextlab picks documents by relevance first, then reorders, and "
                "keeps it."
            ),
            sample_set="eng_postmortems",
            config=second_best,
            view="compare",
            compare_with=second_best.with_changes(seed_compatible=True),
        ),
        Scenario(
            key="faq_copies",
            title="Three copies of the same FAQ",
            story=(
                "The refund policy was retrieved three times over: the help-center page, an "
                "internal copy with light edits and a forum repost. Deduplication keeps one and "
                "frees the budget, where matching exact copies only would let the edited copy "
                "through. The archived 2024 page with stale rules is no copy, so it gets in — "
                "and contradicts the current policy: deduplication cannot tell old from current."
            ),
            sample_set="support_faq",
            config=faq,
            view="duplicates",
            compare_with=faq.with_changes(dedup_threshold=1.0),
        ),
        Scenario(
            key="lost_in_the_middle",
            title="The middle is where answers get lost",
            story=(
                "Models read the start and the end of a long prompt best and miss more in the "
                "middle. With many documents in plain relevance order, the meta-analysis that "
                "answers the question lands in the middle; the lost-in-the-middle reorder moves "
                "it nearer the start."
            ),
            sample_set="clinical_abstracts",
            config=middle,
            view="placement",
            compare_with=middle.with_changes(placement="lost_in_the_middle"),
        ),
    ]


def _second_best(a: ContextResult, answer: DocTrace, in_b: DocTrace | None) -> str:
    n = sum(1 for t in a.trace if t.position is not None)
    kept = f"keeps it at pos {answer.position} of {n}" if answer.position is not None else "leaves it out too"
    b_side = "leaves it out" if in_b is None or in_b.position is None else f"keeps it at pos {in_b.position}"
    return (
        f"The postmortem that answers the question is rank {answer.relevance_rank}: contextlab's default "
        f"(A) {kept}; the original engine (B) {b_side}."
    )


def _copies(a: ContextResult, answer: DocTrace, in_b: DocTrace | None) -> str:
    kinds = sorted(p.kind for p in a.duplicate_pairs if p.kept_index == answer.input_index)
    named = " and ".join(f"{kinds.count(k)} {k}" for k in ("exact", "near") if k in kinds)
    return (
        f"Deduplication drops {len(kinds)} copies of the refund policy ({named}) and keeps the "
        f"help-center page; exact matching alone (B) lets the near copy in."
    )


def _middle(a: ContextResult, answer: DocTrace, in_b: DocTrace | None) -> str:
    n = sum(1 for t in a.trace if t.position is not None)
    text = f"The answer, rank {answer.relevance_rank}: pos {answer.position} of {n} in relevance order"
    if in_b is not None and in_b.position is not None:
        text += f", pos {in_b.position} after the lost-in-the-middle reorder"
    return text + "."


_PUNCHLINES = {"second_best_cut": _second_best, "faq_copies": _copies, "lost_in_the_middle": _middle}


def scenario_keys() -> list[str]:
    """Return the keys of all scenarios, in picker order."""
    return [s.key for s in all_scenarios()]


def get_scenario(key: str) -> Scenario:
    """Return the scenario called ``key``; an unknown key is an error listing the known ones."""
    for scenario in all_scenarios():
        if scenario.key == key:
            return scenario
    raise InvalidInputError(f"unknown scenario {key!r}; choose one of: {', '.join(scenario_keys())}")
