"""Learn view: lost in the middle, from the published measurements to the current documents."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from contextlab.charts.curves import curves_by_count_figure, position_curves_figure
from contextlab.charts.orderings import STRATEGY_LABELS, ordering_rows_figure, reorder_step_figure
from contextlab.charts.style import doc_label
from contextlab.curves import published
from contextlab.curves.evidence import published_evidence
from contextlab.curves.scores import OrderingReport, ordering_report
from contextlab.lab.curve_views import said_of
from contextlab.lab.teaching import (
    HELPS_SCENARIO,
    ScoreRange,
    closed_book_sentence,
    curve_dip,
    curve_name,
    cut_sentence,
    most_marked_model,
    parse_order,
    ranking_sentence,
    ranking_verdicts,
    reorder_verdict,
    score_range,
    score_range_note,
    score_text,
    step_sentence,
    strongest_count,
)
from contextlab.types import DocTrace

from ..context import LabContext
from ..engine import MIN_DOCS_TO_REORDER, ORDERINGS, ordering_positions
from ..parts import on_request, show_chart, show_table, whole_page
from ..scenarios import SCENARIO_KEY, apply_scenario
from ..state import chosen, keep_values
from ..text import md, md_line, plain
from .measured_curve import measured_curve_section

__all__ = ["render", "SECTIONS", "SECTION_KEY"]

#: The view's three sections, in teaching order: one tab each.
SECTIONS = ("1 · What the research measured", "2 · What the reorder does with your documents", "3 · Score any ordering")
#: Where the open section's name is kept (``st.session_state``).
SECTION_KEY = "learn_section"
#: Widgets of one section whose values outlive a visit to another section.
_KEPT = ("learn_model", "learn_curve_n", "learn_step", "learn_strategy", "learn_custom_order")

#: The strategies a learner can score, plus their own ordering.
SCORED_ORDERINGS: dict[str, str] = {
    **STRATEGY_LABELS,
    "custom": "My own order…",
}


def _ranked_in_block(ctx: LabContext) -> list[DocTrace]:
    """Return the trace entries of the documents in the block, most relevant first."""
    return sorted(
        (t for t in ctx.result.trace if t.position is not None), key=lambda t: (t.relevance_rank or 0, t.input_index)
    )


def _section_documents(ctx: LabContext, intro: str) -> list[DocTrace]:
    """Return the block's documents by relevance rank, after the section's intro (its tab names it).

    With no document in the block the section says so (and its caller draws nothing more).
    """
    st.write(intro)
    ranked = _ranked_in_block(ctx)
    if not ranked:
        st.info("No document is in the block yet; load documents or raise the budget.")
    return ranked


def _label(entry: DocTrace, answer: tuple[int, ...] = ()) -> str:
    text = doc_label(entry, 40)
    return text + (" ★ answer" if entry.input_index in answer else "")


# -- 1. the measurements -------------------------------------------------------------------


def _render_curves(ctx: LabContext, model: str) -> None:
    """Draw the published curves for the model the learner picks (``model``: the one picked so far)."""
    data = published.load_position_curves()
    models = data.models()
    st.write(
        "Researchers gave language models a question and a stack of documents, exactly one of "
        "which held the answer, and moved that document from first to last. Accuracy is highest "
        "when the answer is at the start or the end and sags in the middle — and how much it "
        "sags depends on how many documents the prompt holds."
    )
    model = chosen(models, st.selectbox("Model", models, key="learn_model"))
    counts = data.doc_counts(model)
    closed = data.closed_book(model)
    evidence = {n: published_evidence(model, n) for n in counts}  # each point's interval at N = 2,655
    show_chart(
        ctx,
        "learn_counts_chart",
        curves_by_count_figure,
        {n: data.curve(model, n) for n in counts},
        model,
        closed,
        bands={n: ([p.low for p in e.points], [p.high for p in e.points]) for n, e in evidence.items()},
    )
    dips = {n: curve_dip(data.curve(model, n)) for n in counts}
    strongest = strongest_count(model)
    st.caption(
        md_line(
            f"{model}: the middle dips "
            + ", ".join(f"{dips[n]:.1f} points below the better end with {n} documents" for n in counts)
            + f". The U is clearest with {strongest}."
        )
    )

    if st.session_state.get("learn_curve_n") not in counts:
        # first visit, or a model measured at other counts (GPT-3.5-Turbo has no 30)
        st.session_state["learn_curve_n"] = strongest
    n = chosen(
        counts,
        st.radio(
            "Compare every model at",
            counts,
            key="learn_curve_n",
            horizontal=True,
            format_func=lambda c: f"{c} documents",
        ),
    )
    curves = {m: data.curve(m, n) for m in models if n in data.doc_counts(m)}
    references = {f"{model}, no documents (closed book)": closed} if closed is not None else {}
    every_model = on_request("Every model's curve at this count (chart)", "learn_models_open")
    if every_model is not None:
        with every_model:
            shown = published_evidence(model, n)
            show_chart(
                ctx,
                "learn_curves_chart",
                position_curves_figure,
                curves,
                n,
                references=references,
                highlight=model,
                bands={model: ([p.low for p in shown.points], [p.high for p in shown.points])},
            )
    # What the shape is, said only as far as the paired tests on 2,655 questions resolve it.
    shown = published_evidence(model, n)
    sentence = _curve_sentence(model, n, data.curve(model, n), closed)
    st.info(md_line(sentence + f" What Liu et al.'s 2,655 questions show: {said_of(model, shown)}."))
    # The paper's address is the lab's own text: a real link, between escaped parts.
    st.caption(
        md_line(f"Source: {data.citation}")
        + f" [{published.CITATION_URL}]({published.CITATION_URL}) "
        + md_line("— accuracy on multi-document question answering, by position of the document holding the answer.")
    )
    measured_curve_section(ctx, "learn")


def _curve_sentence(model: str, n: int, points: list[tuple[int, float]], closed: float | None) -> str:
    """Return what ``model``'s curve at ``n`` documents says: first, last, the low point, against closed book."""
    first, last = points[0], points[-1]
    low = min(points, key=lambda p: p[1])
    sentence = (
        f"{model} with {n} documents: {first[1]:.1f}% correct when the answer is first, "
        f"{last[1]:.1f}% when it is last"
        + (f", and only {low[1]:.1f}% at pos {low[0]}." if low not in (first, last) else ".")
    )
    if closed is not None:
        sentence += closed_book_sentence(low[1], closed)
    return sentence


# -- 2. the reorder, step by step ------------------------------------------------------------


def _step_next(n: int) -> None:
    st.session_state["learn_step"] = min(st.session_state.get("learn_step", 0) + 1, n)


def _step_reset() -> None:
    st.session_state["learn_step"] = 0


def _render_stepper(ctx: LabContext, model: str) -> None:
    ranked = _section_documents(
        ctx,
        "contextlab places the most relevant document first, the second most relevant last, "
        "the third second, the fourth second to last, and so on — so the block fills from both "
        "ends and the least relevant documents meet in the middle, where the model reads worst.",
    )
    n = len(ranked)
    if n == 0:
        return
    if n < MIN_DOCS_TO_REORDER:
        st.info(
            f"With {n} document(s) the order is kept as it is: reordering starts at {MIN_DOCS_TO_REORDER} documents."
        )
    order = ordering_positions("lost_in_the_middle", n)
    st.session_state.setdefault("learn_step", min(2, n))
    if st.session_state["learn_step"] > n:
        st.session_state["learn_step"] = n
    c1, c2, c3 = st.columns([4, 1, 1])
    step = c1.slider("Documents placed", min_value=0, max_value=n, key="learn_step")
    c2.button("Next ▶", key="learn_step_next", on_click=_step_next, args=(n,), disabled=step >= n, width="stretch")
    c3.button("Start over", key="learn_step_reset", on_click=_step_reset, width="stretch")

    curve = published.accuracy_curve(model, n)
    labels = [_label(t, ctx.answer) for t in ranked]
    ranks = [t.relevance_rank or k + 1 for k, t in enumerate(ranked)]  # the engine's ranks, as elsewhere
    answer_ranks = {k for k, t in enumerate(ranked) if t.input_index in ctx.answer}
    show_chart(
        ctx,
        "learn_step_chart",
        reorder_step_figure,
        order,
        step,
        labels,
        curve,
        answer_ranks,
        rank_names=ranks,
        curve_name=curve_name(model, n),
    )
    st.text(plain(step_sentence(step, order, labels, curve, model, ranks)))
    _verdicts(ctx, ranked, order, curve, model, sorted(answer_ranks), labels)
    table = pd.DataFrame(
        [
            {
                "pos": p + 1,
                "document": plain(labels[order[p]]) if order[p] < step else "",
                "rank": str(ranks[order[p]]) if order[p] < step else "",
                "accuracy here (%)": round(curve[p], 1),
            }
            for p in range(n)
        ]
    )
    show_table(ctx, table, hide_index=True, width="stretch")
    st.caption(md_line(f"Accuracy here: {model}'s {curve_name(model, n)}, for {n} documents."))


def _open_helping_case() -> None:
    st.session_state[SCENARIO_KEY] = HELPS_SCENARIO
    apply_scenario(SCENARIO_KEY)
    st.session_state["view"] = "learn"
    st.session_state[SECTION_KEY] = SECTIONS[1]  # the step-by-step reorder, where it helps
    whole_page()  # a scenario: new documents and settings


def _verdicts(
    ctx: LabContext,
    ranked: list[DocTrace],
    order: list[int],
    curve: list[float],
    model: str,
    answer_ranks: list[int],
    labels: list[str],
) -> None:
    """Say what the reorder does for the answer (or the most relevant document), and open a case where it helps.

    Each verdict reads the curve shown at the document's position in relevance order and under the
    reorder, so the page never says the reorder cannot help while it moves the answer somewhere better.
    """
    ranks = answer_ranks or [0]
    helps = False
    for k in ranks:
        what = (
            f"the answer (★ {labels[k].removesuffix(' ★ answer')}, rank {ranked[k].relevance_rank or k + 1})"
            if answer_ranks
            else f"the most relevant document ({labels[k]})"
        )
        verdict = reorder_verdict(curve, k + 1, order.index(k) + 1, model, what=what)
        helps = helps or verdict.helps
        st.info(md_line(verdict.text + _cut_note(ctx, ranked[k]) if answer_ranks else verdict.text))
    if not helps:
        st.button(
            "Show a case where it helps: an answer deep in the ranking",
            key="learn_open_helping",
            on_click=_open_helping_case,
        )


def _cut_note(ctx: LabContext, entry: DocTrace) -> str:
    """Return " The answer was cut: …" (or that it survived) for an answer document cut to fit, else ""."""
    if entry.fate != "truncated" or entry.position is None:
        return ""
    kept = ctx.result.included_docs[entry.position - 1].content
    return " " + cut_sentence(kept, ctx.documents[entry.input_index].content, ctx.gold_answers)


# -- 3. scoring an ordering ------------------------------------------------------------------


def _render_score(ctx: LabContext, model: str) -> None:
    ranked = _section_documents(
        ctx,
        "How much of your documents' relevance lands where the model reads well? 100% would "
        "mean every bit of relevance sits at the model's best-read position; the score drops "
        "as relevant documents slide into the middle.",
    )
    n = len(ranked)
    if n == 0:
        return
    relevances = [max(t.score, 0.0) for t in ranked]  # a negative score is no relevance
    labels = [_label(t, ctx.answer) for t in ranked]
    strategies = list(SCORED_ORDERINGS)
    strategy = chosen(
        strategies,
        st.selectbox("Ordering", strategies, key="learn_strategy", format_func=SCORED_ORDERINGS.__getitem__),
    )
    if strategy == "custom":
        st.session_state.setdefault("learn_custom_order", " ".join(str(i) for i in range(1, n + 1)))
        typed = st.text_input(f"Relevance ranks in block order (each of 1..{n} once)", key="learn_custom_order")
        try:
            order = parse_order(typed, n)
        except ValueError as exc:
            st.error(md(exc))
            return
    else:
        # "curve" follows the curve being taught: the best-read positions of this model
        order = ordering_positions(strategy, n, published.position_curve(model) if strategy == "curve" else None)
    placed = [relevances[r] for r in order]
    report = ordering_report(placed, model, n)
    c1, c2, c3 = st.columns(3)
    c1.metric("Placement score", score_text(report.score))
    c2.metric("Best possible", score_text(report.best_score))
    c3.metric("Worst possible", score_text(report.worst_score))
    rows = on_request("Where each document's relevance lands, position by position (chart)", "learn_score_chart_open")
    if rows is not None:
        with rows:
            show_chart(
                ctx,
                "learn_score_chart",
                ordering_rows_figure,
                [r.position for r in report.rows],
                [r.relevance for r in report.rows],
                [r.accuracy for r in report.rows],
                [labels[r] for r in order],
            )

    _strategies_table(ctx, _strategy_ranges(relevances, model, n), report, model, n)


def _strategy_ranges(relevances: list[float], model: str, n: int) -> list[tuple[str, ScoreRange]]:
    """Return every strategy's placement score on these relevances with its 95% interval, best first."""
    ranges = []
    for key, place in ORDERINGS.items():
        rows = ordering_report(place(relevances), model, n).rows
        ranges.append((SCORED_ORDERINGS[key], score_range([r.relevance for r in rows], [r.accuracy for r in rows])))
    return sorted(ranges, key=lambda kv: -kv[1].score)


def _strategies_table(
    ctx: LabContext, ranges: list[tuple[str, ScoreRange]], report: OrderingReport, model: str, n: int
) -> None:
    """Draw every strategy's score and interval on these documents, and how the score is computed."""
    st.markdown(f"**All strategies on your {n} documents under {md_line(model)}**")
    verdicts = ranking_verdicts(ranges)
    show_table(
        ctx,
        pd.DataFrame(
            [
                {
                    "strategy": name,
                    "score": r.score,
                    "95% interval": f"{score_text(r.low)} – {score_text(r.high)}",
                    "vs the highest": verdicts[name],
                }
                for name, r in ranges
            ]
        ),
        key="learn_scores_table",
        percent=("score",),
        hide_index=True,
        width="stretch",
        column_config={"score": st.column_config.ProgressColumn(format="percent", min_value=0.0, max_value=1.0)},
    )
    st.info(ranking_sentence(ranges))
    st.caption(score_range_note(report.worst_score, report.best_score, n))
    with st.expander("How the score is computed", expanded=False):
        st.markdown(
            "**Score** = Σ (relevance of the document at position *i* × accuracy at *i*) ÷ "
            "(Σ relevance × the best accuracy on the curve). Relevance is each document's "
            "retrieval score; accuracy is the chosen model's published curve.\n\n"
            "**Interval.** Each point of the curve was measured on 2,655 questions, so it is uncertain "
            "by a point or so; the interval carries that into the score. Two orderings whose intervals "
            "overlap cannot be told apart on these numbers.\n\n"
            f"**Other document counts.** {published.INTERPOLATION_METHOD}"
        )


def render(ctx: LabContext) -> None:
    """Draw the Learn view for ``ctx``: its three sections as tabs, only the open one drawn."""
    st.header("Learn: lost in the middle", anchor=False)
    st.write(
        "Language models do not read a long prompt evenly: they use what is at the start and "
        "the end far better than what is buried in the middle. This page shows the published "
        "measurements, then what contextlab does about it with your documents."
    )
    # A section's widgets keep their values while another section is open (Streamlit forgets
    # the value of a widget a run does not draw): the model picked in 1 is the one 2 and 3 use.
    st.session_state.setdefault("learn_model", most_marked_model())
    keep_values(*_KEPT)
    # Only the open section is drawn (switching reruns the view): a first visit lays out one
    # chart and its widgets, not the whole page's (about a quarter second on two cores).
    tabs = st.tabs(SECTIONS, key=SECTION_KEY, on_change="rerun")
    model = st.session_state["learn_model"]
    for tab, draw in zip(tabs, (_render_curves, _render_stepper, _render_score), strict=False):
        if tab.open:
            with tab:
                draw(ctx, model)
