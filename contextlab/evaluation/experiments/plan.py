"""Every prompt of a context experiment, planned before anything is sent: questions x levels.

``plan_experiment`` takes the first usable questions of a set (the bundled NaturalQuestions-Open
one by default) and writes, for each, one prompt per level of the varied factor, in Liu et al.'s
format (``Document [n](Title: ...) text`` under the paper's instruction). The same questions are
at every level, which is what makes the tests between levels paired. Each prompt's tokens are
counted here, so a level the model's window cannot hold is refused before any call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...errors import InvalidInputError
from ...models.prompts import DEFAULT_TEMPLATE, QA_INSTRUCTION, QATemplate, Shot, paper_documents
from ...tokenizers import Tokenizer
from ...types import Document
from ..curve import solved_examples
from ..curve_sources import CurveQuestion, CurveSkip, curve_question
from ..sets import BundledCorpus, EvalQuestion, EvalSet, StoreRetriever, load_bundled_set
from .contexts import (
    bundled_filler,
    padded_documents,
    shuffled_documents,
    shuffled_pool,
    unrelated_passages,
    with_distractors,
)
from .design import ExperimentSettings

__all__ = ["ABSTAIN_TEMPLATE", "ExperimentCase", "ExperimentPlan", "plan_experiment"]

#: The abstention prompt: the paper's instruction, and leave to say the results do not hold the answer.
ABSTAIN_TEMPLATE = QATemplate(
    instruction=QA_INSTRUCTION + ' If none of the search results holds the answer, answer "I don\'t know".'
)
# Passages retrieved for a question whose titles filler and random distractors never share.
_RELATED = 20


@dataclass(frozen=True)
class ExperimentCase:
    """One prompt: a question at one level, its context's tokens, and the whole prompt's tokens."""

    query_id: str
    level: int
    prompt: str
    context_tokens: int
    prompt_tokens: int


@dataclass
class ExperimentPlan:
    """Every prompt of an experiment, the questions asked, and the questions left out (with why)."""

    settings: ExperimentSettings
    questions: list[EvalQuestion]
    cases: list[ExperimentCase]
    skipped: list[CurveSkip] = field(default_factory=list)
    source: str = ""
    #: The tokenizer the tokens were counted in.
    counted_in: str = ""

    @property
    def prompts(self) -> list[str]:
        """Return every case's prompt, in case order (question by question, level by level)."""
        return [c.prompt for c in self.cases]

    def first(self, count: int) -> ExperimentPlan:
        """Return the plan of its first ``count`` questions (the same prompts)."""
        kept = self.questions[:count]
        ids = {q.query_id for q in kept}
        cases = [c for c in self.cases if c.query_id in ids]
        return ExperimentPlan(self.settings, kept, cases, self.skipped, self.source, self.counted_in)

    def longest_prompt(self, level: int) -> int:
        """Return the tokens of the longest prompt at ``level``."""
        return max((c.prompt_tokens for c in self.cases if c.level == level), default=0)

    def skipped_note(self) -> str | None:
        """Return one line counting the questions skipped and the first reason, or None."""
        if not self.skipped:
            return None
        first = self.skipped[0]
        return (
            f"{len(self.skipped)} question(s) of {self.source or 'the set'} skipped (first: {first.query_id}: "
            f"{first.reason}); {len(self.questions)} measured"
        )


def _related(question: EvalQuestion, evalset: EvalSet) -> list[Document]:
    if question.documents is not None and not isinstance(evalset.retriever, BundledCorpus):
        return list(question.documents)
    if isinstance(evalset.retriever, (BundledCorpus, StoreRetriever)):
        return evalset.retriever.retrieve(question.query, _RELATED)
    return []


def _contexts(
    settings: ExperimentSettings,
    found: CurveQuestion,
    evalset: EvalSet,
    pool: Sequence[Document],
    tokenizer: Tokenizer,
) -> dict[int, list[Document]] | str:
    """Return the documents at each level for one question, or why the question cannot be asked."""
    q, gold = found.question, found.gold
    kind, seed = settings.kind, settings.seed
    if kind in ("orders", "abstain"):
        docs = [*found.others[: settings.position - 1], gold, *found.others[settings.position - 1 :]]
        if kind == "abstain":
            return {1: docs, 0: list(found.others)}
        return {n: shuffled_documents(docs, seed, q.query_id, n) for n in settings.levels}
    if kind == "distractors":
        most = max(settings.levels)
        if settings.distractor_kind == "related":
            extra = list(found.others[:most])
        else:
            unrelated = unrelated_passages(q, gold, pool, _related(q, evalset))
            extra = [d for _, d in zip(range(most), unrelated, strict=False)]
        if len(extra) < most:
            return f"only {len(extra)} {settings.distractor_kind} distractors, {most} needed"
        return {n: with_distractors(gold, extra[:n], seed, q.query_id) for n in settings.levels}
    related = _related(q, evalset)
    out: dict[int, list[Document]] = {}
    for tokens in settings.levels:
        padded = padded_documents(
            gold, unrelated_passages(q, gold, pool, related), tokens, settings.position, tokenizer
        )
        if padded is None:
            return f"its answer passage alone is longer than {tokens} tokens"
        out[tokens] = padded
    return out


def _check_filler(filler: Sequence[Document], longest: int, tokenizer: Tokenizer) -> None:
    """Refuse a filler that cannot pad a context to ``longest`` tokens."""
    total = 0
    for doc in filler:
        total += tokenizer.count(paper_documents([doc])) + 1
        if total >= longest:
            return
    raise InvalidInputError(
        f"filler holds about {total:,} tokens, fewer than the longest length {longest:,}; give a longer filler "
        "file or shorter lengths",
        field="filler",
    )


def _level_field(settings: ExperimentSettings) -> str:
    return {"length": "lengths", "distractors": "distractors"}.get(settings.kind, "documents")


def _needed_others(settings: ExperimentSettings) -> int:
    if settings.kind in ("orders", "abstain"):
        return settings.documents - 1
    if settings.kind == "distractors" and settings.distractor_kind == "related":
        return max(settings.levels)
    return 0


def _lacking_error(settings: ExperimentSettings, lacking: int, scanned: int, source: str) -> InvalidInputError:
    need = max(settings.levels)
    return InvalidInputError(
        f"distractors: {lacking} of {scanned} questions of {source or 'the set'} have fewer than {need} documents "
        f"that are not gold and hold no answer; related distractors need {need} per question (give more "
        "documents per question, a store, or use distractor_kind random)",
        field="distractors",
    )


def plan_experiment(
    settings: ExperimentSettings,
    evalset: EvalSet | None = None,
    *,
    tokenizer: Tokenizer,
    filler: Sequence[Document] | None = None,
) -> ExperimentPlan:
    """Return the prompts of ``settings``' experiment on the first ``settings.limit`` usable questions of ``evalset``.

    ``evalset`` None is the bundled set; ``filler`` (default: the bundled passages) pads lengths
    and gives random distractors; ``tokenizer`` counts every context and prompt.
    """
    evalset = evalset if evalset is not None else load_bundled_set()
    if filler is not None and settings.kind == "length":
        _check_filler(filler, max(settings.levels), tokenizer)
    pool = shuffled_pool(filler if filler is not None else bundled_filler(), settings.seed)
    template = ABSTAIN_TEMPLATE if settings.kind == "abstain" else DEFAULT_TEMPLATE
    kept: list[tuple[EvalQuestion, dict[int, list[Document]]]] = []
    skipped: list[CurveSkip] = []
    lacking = 0
    need = _needed_others(settings)
    for question in evalset.questions:
        if len(kept) == settings.limit:
            break
        found = curve_question(question, evalset, 1)
        if not isinstance(found, CurveSkip) and need:
            with_others = curve_question(question, evalset, need + 1)
            if isinstance(with_others, CurveSkip) and settings.kind == "distractors":
                lacking += 1
                with_others = CurveSkip(question.query_id, f"fewer than {need} related documents")
            found = with_others
        contexts = (
            found.reason if isinstance(found, CurveSkip) else _contexts(settings, found, evalset, pool, tokenizer)
        )
        if isinstance(contexts, str):
            skipped.append(CurveSkip(question.query_id, contexts))
        else:
            kept.append((question, contexts))
    if not kept and lacking:
        raise _lacking_error(settings, lacking, len(kept) + len(skipped), evalset.name)
    if not kept:
        first = f" (first: {skipped[0].query_id}: {skipped[0].reason})" if skipped else ""
        raise InvalidInputError(
            f"no question of {evalset.name or 'the set'} can be asked at every level{first}",
            field=_level_field(settings),
        )
    scanned = {s.query_id for s in skipped} | {q.query_id for q, _ in kept}
    shots: list[Shot] = solved_examples(settings.shots, scanned)
    cases = [
        _case(question, level, docs, template, shots, tokenizer)
        for question, contexts in kept
        for level, docs in contexts.items()
    ]
    return ExperimentPlan(settings, [q for q, _ in kept], cases, skipped, evalset.name, tokenizer.name)


def _case(
    question: EvalQuestion,
    level: int,
    docs: list[Document],
    template: QATemplate,
    shots: list[Shot],
    tokenizer: Tokenizer,
) -> ExperimentCase:
    block = paper_documents(docs)
    prompt = template.render(question.query, block, shots)
    return ExperimentCase(question.query_id, level, prompt, tokenizer.count(block), tokenizer.count(prompt))
