"""Evaluate view: a grid of settings measured on labelled questions, and the questions behind a number.

The view gathers the set and the grid, calls ``contextlab.evaluation.run_evaluation`` once (on
"Run"), and draws the result; picking a question opens its retrieved documents in the other views.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from contextlab.charts.evaluate import (
    gold_zones_figure,
    settings_heatmap_figure,
    tokens_accuracy_figure,
)
from contextlab.curves.published import curve_models
from contextlab.errors import ContextLabError
from contextlab.evaluation import (
    BUNDLED_SET,
    EXPECTED_ACCURACY_NOTE,
    METRIC_WORDS,
    EvalResult,
    EvalSet,
    Recommendation,
    RunOptions,
    RunReport,
    disagreements,
    gains_lines,
    gold_zone_shares,
    load_bundled_set,
    load_eval_bytes,
    pareto_front,
    question_documents,
    results_csv,
    run_evaluation,
    setting_table,
    sort_by_difference,
)
from contextlab.evaluation.rows import SettingValue
from contextlab.intervals import format_bounds, format_interval
from contextlab.lab.config import LabConfig
from contextlab.lab.curve_views import measured_label

from ..context import LabContext
from ..curve_store import loaded_curve
from ..engine import PLACEMENTS, tokenizer_options
from ..eval_link import (
    BUDGET_CHOICES,
    MEASURED_CURVE,
    MIN_TOKEN_CHOICES,
    OPENED_FROM_LINK,
    THRESHOLD_CHOICES,
    seed_evaluate_widgets,
)
from ..parameters import tokenizer_option_label
from ..parts import explain, show_chart, whole_page
from ..questions import gold_keys, remember_origin
from ..state import TABLE_ANSWER, seed_config
from ..text import caption, error, info, md_line, plain, warning
from .measured_curve import measured_curve_section
from .model_answers import answer_with_model, answers_table, run_and_keep

__all__ = ["render", "grid_from_choices", "open_question", "gold_keys", "measures_note"]

_METRIC_WORDS = {"accuracy": "accuracy", "gold_in_block": "gold in block"}
_SORTS: dict[str, bool | None] = {
    "grid order": None,
    "largest difference first": True,
    "smallest difference first": False,
}
_DISAGREE_METRICS = {
    "gold_in_block": "gold in the block",
    "answer_in_block": "an answer in the block",
    "gold_position": "the gold's position",
}
#: Where "Open in the lab" lands: the view that shows where each document was placed.
OPEN_IN_VIEW = "placement"


@st.cache_resource(show_spinner="Loading the bundled NaturalQuestions-Open set…")
def _bundled() -> EvalSet:
    return load_bundled_set()


@st.cache_resource(max_entries=4, show_spinner=False)
def _uploaded(digest: str, name: str, _data: bytes) -> EvalSet:
    # Keyed by the content digest; ``_data`` is unhashed and matches it.
    return load_eval_bytes(_data, name)


def _pick_set() -> EvalSet | None:
    choice = st.radio(
        "Evaluation set",
        ["bundled", "upload"],
        key="eval_set_choice",
        horizontal=True,
        format_func={"bundled": "NaturalQuestions-Open (bundled, 2,655 questions)", "upload": "Upload a JSONL"}.get,
    )
    if choice == "bundled":
        caption(
            "Liu et al. (2024): each question's Wikipedia passage is its gold document; the top k "
            "of all 2,600 passages are retrieved with BM25 (SQLite FTS5, titles indexed)."
        )
        return _bundled()
    upload = st.file_uploader(
        "Evaluation set (.jsonl or .jsonl.gz)",
        type=["jsonl", "gz"],
        key="eval_upload",
        help='One question per line: {"query", "documents", "gold_sources", "answers"} '
        'or the paper\'s {"question", "answers", "ctxs"}.',
    )
    if upload is None:
        st.info("Upload a JSONL of labelled questions, or use the bundled set.")
        return None
    data = upload.getvalue()
    st.session_state["eval_upload_sha256"] = hashlib.sha256(data).hexdigest()
    try:
        evalset = _uploaded(hashlib.blake2b(data, digest_size=16).hexdigest(), upload.name, data)
    except (ValueError, ContextLabError) as exc:
        error(exc)
        return None
    for set_note in evalset.notes:  # e.g. questions whose gold names no document
        warning(set_note)
    return evalset


def grid_from_choices(
    budgets: list[int], placements: list[str], thresholds: list[float], min_tokens: list[int], tokenizers: list[str]
) -> tuple[dict[str, list[SettingValue]], dict[str, SettingValue]]:
    """Return ``(grid, fixed)``: settings with several values vary; single ones fix the base config."""
    chosen: dict[str, Sequence[SettingValue]] = {
        "max_context_tokens": budgets,
        "placement": placements,
        "dedup_threshold": thresholds,
        "min_doc_tokens": min_tokens,
        "tokenizer": tokenizers,
    }
    grid = {k: list(v) for k, v in chosen.items() if len(v) > 1}
    fixed = {k: v[0] for k, v in chosen.items() if len(v) == 1}
    return grid, fixed


@dataclass(frozen=True)
class _RunChoices:
    """What the view's controls say of a run beyond its grid: how many questions, how many retrieved, which curve."""

    limit: int
    top_k: int
    curve_model: str


def _grid_controls(ctx: LabContext, n_questions: int) -> tuple[dict[str, list[SettingValue]], LabConfig, _RunChoices]:
    # Defaults go in the session first (a link may have set them): no widget is given a default too.
    seed_evaluate_widgets(ctx.config.effective_tokenizer, n_questions)
    left, right = st.columns(2)
    with left:
        # A range slider is one because its value is a pair: given as the session holds it.
        low, high = st.select_slider(
            "Budgets (a range of token budgets)",
            BUDGET_CHOICES,
            key="eval_budgets",
            value=tuple(st.session_state["eval_budgets"]),
        )
        placements = st.multiselect("Placements", PLACEMENTS, key="eval_placements")
        thresholds = st.multiselect("Dedup thresholds", THRESHOLD_CHOICES, key="eval_thresholds")
    with right:
        min_tokens = st.multiselect("Minimum document tokens", MIN_TOKEN_CHOICES, key="eval_min_tokens")
        tokenizers = st.multiselect(
            "Tokenizers",
            tokenizer_options(ctx.config.effective_tokenizer, *st.session_state.get("eval_tokenizers", [])),
            key="eval_tokenizers",
            format_func=tokenizer_option_label,
        )
        _, measured = loaded_curve()
        model = st.selectbox(
            "Expected accuracy read on",
            [*curve_models(), MEASURED_CURVE],
            key="eval_model",
            format_func=lambda m: (
                f"your curve: {measured_label(measured)}" if m == MEASURED_CURVE else f"{m} (published)"
            ),
            help="A published curve, or the measured curve the lab holds (the bundled "
            "model's, or the file loaded under \"Your model's curve\" below).",
        )
    a, b = st.columns(2)
    limit = a.number_input("Questions (the first N)", 1, n_questions, key="eval_limit")
    top_k = b.number_input("Retrieve top k", 1, 100, key="eval_top_k")
    budgets = [x for x in BUDGET_CHOICES if low <= x <= high]
    grid, fixed = grid_from_choices(
        budgets,
        placements or ["lost_in_the_middle"],
        thresholds or [0.85],
        min_tokens or [5],
        tokenizers or [ctx.config.effective_tokenizer],
    )
    base = ctx.config.with_changes(query="", seed_compatible=False, **fixed)
    return grid, base, _RunChoices(int(limit), int(top_k), model if model is not None else curve_models()[0])


def _run(evalset: EvalSet, grid: dict[str, list[SettingValue]], base: LabConfig, choices: _RunChoices) -> None:
    digest = st.session_state.get("eval_upload_sha256") if st.session_state.get("eval_set_choice") == "upload" else None

    def work(bar: Any) -> Any:
        def progress(done: int, total: int, note: str = "") -> None:
            bar.progress(done / max(total, 1), text=f"Evaluating… {done}/{total} questions")

        options = RunOptions(base=base, limit=choices.limit, top_k=choices.top_k)
        if choices.curve_model == MEASURED_CURVE:  # expected accuracy from the measured curve, with its N's interval
            name, curves = loaded_curve()
            options = options.with_changes(curves=curves, curve_name=name)
        else:
            options = options.with_changes(curve_model=choices.curve_model)
        return run_evaluation(evalset, grid, options, progress=progress, evalset_sha256=digest)

    run_and_keep(evalset, "Evaluating…", work)


def open_question(query_id: str, config_label: str) -> None:
    """Make question ``query_id``'s documents the lab's documents, under configuration ``config_label``.

    A button callback: it runs before the next script run, so the sidebar's widgets show the
    new documents (as an editable table), the question as the query, and that configuration.
    """
    result: EvalResult = st.session_state["eval_result"]
    evalset: EvalSet = st.session_state["eval_set"]
    question = next(q for q in evalset.questions if q.query_id == query_id)
    docs = question_documents(question, evalset.retriever, result.top_k)
    config = next(c.config for c in result.configs if c.label == config_label)
    seed_config(LabConfig.from_settings(config, query=question.query), force=True)
    st.session_state["doc_source"] = "table"
    st.session_state["table_documents"] = docs
    st.session_state[TABLE_ANSWER] = (None, gold_keys(question, docs), tuple(question.answers))
    remember_origin(evalset.name, query_id, result.top_k, docs)  # a link can then name the question
    st.session_state["view"] = OPEN_IN_VIEW
    whole_page()  # new documents and settings: the sidebar and the build change


def _paired_cells(s: Mapping[str, Any], metric: str, scale: float) -> dict[str, float | str | None]:
    """Return the paired difference against the baseline (a number, so the column sorts), its interval and p."""
    words = _METRIC_WORDS.get(metric, metric)
    paired = s.get("vs_baseline")
    c = None if paired is None else paired.get(metric)
    if paired is None:
        return {f"Δ {words} vs baseline": 0.0, "Δ 95% interval": "baseline", "p (McNemar)": None}
    if not c or c.get("difference") is None:
        return {f"Δ {words} vs baseline": None, "Δ 95% interval": "—", "p (McNemar)": None}
    return {
        f"Δ {words} vs baseline": round(c["difference"] * scale, 2),
        "Δ 95% interval": format_bounds(c["low"] * scale, c["high"] * scale, signed=True),
        "p (McNemar)": None if c.get("p_value") is None else round(c["p_value"], 4),
    }


def _summary_frame(result: EvalResult, summaries: Sequence[Mapping[str, Any]], metric: str) -> pd.DataFrame:
    """Return one row per configuration: the paired difference and its p first, then every measure.

    Δ and p come right after the configuration, so they are on screen without a horizontal scroll
    at 1440 px; the wide interval columns follow.
    """

    def ci(s: Mapping[str, Any], name: str, scale: float) -> str:
        if s.get(name) is None:
            return "—"
        return format_interval(s[name] * scale, s[name + "_low"] * scale, s[name + "_high"] * scale)

    measured = any(s.get("accuracy") is not None for s in summaries)
    return pd.DataFrame(
        [
            {
                "configuration": plain(s["config"]),
                **_paired_cells(s, metric, 100),
                "mean tokens": round(s["tokens_used"], 1),
                "gold in block %": ci(s, "gold_in_block", 100),
                **({"accuracy % (measured)": ci(s, "accuracy", 1)} if measured else {}),
                "expected accuracy % (estimate)": ci(s, "expected_accuracy", 1),
                "gold retrieved %": ci(s, "gold_retrieved", 100),
                "gold recall %": ci(s, "gold_recall", 100),
                "answer in block %": ci(s, "answer_in_block", 100),
            }
            for s in summaries
        ]
    )


def measures_note(recommendation: Recommendation, front: list[str]) -> str:
    """Return what the tokens chart reads beside what the recommendation reads, and whether they agree here."""
    words = METRIC_WORDS.get(recommendation.metric, recommendation.metric)
    text = (
        f"This chart reads expected accuracy, an estimate from the published curve; the recommendation reads "
        f"{words}. The two measures can favour different configurations."
    )
    chosen = recommendation.config
    if chosen and front and chosen not in front:
        text += f" Here they do: the recommended {chosen} is not on this chart's front, which holds {', '.join(front)}."
    elif chosen and chosen in front:
        text += f" Here the recommended {chosen} is on this chart's front too."
    return text


def _recommendation(result: EvalResult, report: RunReport) -> None:
    advice = report.recommendation
    info(f"Recommendation — {advice.text}")
    for line in gains_lines(report.budget_gains):
        caption(line)


def _pooled(result: EvalResult, by: str) -> str:
    """Return the settings a per-``by`` chart pools over, in words (``max_context_tokens 256, 512``)."""
    return "; ".join(
        f"{k} {', '.join(str(v) for v in values)}" for k, values in result.grid.items() if k != by and len(values) > 1
    )


def _charts(
    ctx: LabContext, result: EvalResult, summaries: Sequence[Mapping[str, Any]], recommendation: Recommendation
) -> None:
    front = pareto_front(summaries)
    show_chart(ctx, "eval_pareto", tokens_accuracy_figure, summaries, front, model=result.curve_model)
    caption(measures_note(recommendation, front))
    keys = result.grid_keys
    if len(keys) >= 2:
        a, b, c = st.columns(3)
        x_key = a.selectbox("Heatmap across", keys, index=0, key="eval_hx")
        y_key = b.selectbox("and", [k for k in keys if k != x_key], key="eval_hy")
        shown = ["expected_accuracy", "gold_in_block", "gold_recall", "answer_in_block", "tokens_used"]
        if any(s.get("accuracy") is not None for s in summaries):
            shown.insert(0, "accuracy")
        metric = c.selectbox("showing", shown, key="eval_hmetric")
        if x_key is None or y_key is None or metric is None:
            return  # a selectbox with options always holds one
        xs, ys, cells = setting_table(summaries, x_key, y_key, metric)
        show_chart(ctx, "eval_heatmap", settings_heatmap_figure, xs, ys, cells, x_key, y_key, metric)
    else:
        caption("Vary two settings (e.g. budgets and placements) to see them as a heatmap.")
    by = "placement" if "placement" in keys else "config"
    pooled = _pooled(result, by)
    show_chart(ctx, "eval_zones", gold_zones_figure, gold_zone_shares(result.rows, by), by, pooled)
    caption(
        f"Each bar pools every question under {pooled}."
        if pooled
        else "Each bar is one configuration: nothing is pooled."
    )


def _cell(value: Any) -> Any:
    # An undefined metric (no gold position when the gold is not in the block) reads as a dash.
    return "—" if value is None else value


def _disagreement_table(result: EvalResult) -> None:
    labels = [c.label for c in result.configs]
    st.markdown("#### Where two configurations disagree")
    if len(labels) < 2:
        caption("Run at least two configurations to compare them question by question.")
        return
    a, b, c = st.columns(3)
    config_a = a.selectbox("Configuration A", labels, index=0, key="eval_a", format_func=plain)
    config_b = b.selectbox("Configuration B", labels, index=len(labels) - 1, key="eval_b", format_func=plain)
    metric = c.selectbox("on", list(_DISAGREE_METRICS), format_func=lambda m: _DISAGREE_METRICS[m], key="eval_dmetric")
    if config_a is None or config_b is None or metric is None:
        return  # a selectbox with options always holds one
    items = disagreements(result.rows, config_a, config_b, metric)
    caption(f"{len(items)} of {len(result.questions)} questions differ on {_DISAGREE_METRICS[metric]}.")
    if not items:
        return

    def pos(value: int | None) -> str:
        return "not in block" if value is None else f"pos {value}"

    # Sorted by the paired difference B - A (largest first); the column header sorts it again.
    items = sorted(items, key=lambda i: (i.difference is None, -(i.difference or 0.0)))
    frame = pd.DataFrame(
        [
            {
                "question": plain(result.questions[i.query_id]),
                "id": i.query_id,
                "A": _cell(i.a),
                "B": _cell(i.b),
                "B − A": i.difference,
                "A gold at": pos(i.a_position),
                "B gold at": pos(i.b_position),
                "A tokens": i.a_tokens,
                "B tokens": i.b_tokens,
            }
            for i in items
        ]
    )
    st.dataframe(frame, hide_index=True, width="stretch", height=260)
    ids = [i.query_id for i in items]
    pick, which = st.columns([3, 1])
    chosen = pick.selectbox(
        "Open a question in the lab", ids, key="eval_pick", format_func=lambda q: plain(f"{q}: {result.questions[q]}")
    )
    side = which.radio("under", ["A", "B"], horizontal=True, key="eval_side")
    st.button(
        "Open in the lab",
        key="eval_open",
        on_click=open_question,
        args=(chosen, config_a if side == "A" else config_b),
        help="Its retrieved documents become the lab's documents (an editable table), "
        "the question its query, and the chosen configuration its settings.",
    )


def _show(ctx: LabContext, result: EvalResult) -> None:
    labels = [c.label for c in result.configs]
    st.markdown(
        md_line(
            f"{len(result.questions)} questions × {len(result.configs)} configurations "
            f"of {result.evalset}, top {result.top_k} retrieved"
        )
    )
    left, right = st.columns(2)
    baseline = left.selectbox(
        "Baseline (paired differences against it)", labels, key="eval_baseline", format_func=plain
    )
    order = right.selectbox("Sort by the paired difference", list(_SORTS), key="eval_sort")
    report = result.report(baseline=baseline)
    summaries: Sequence[Mapping[str, Any]] = report.configs
    metric = report.metric
    descending = _SORTS.get(order or "")
    if descending is not None:
        summaries = sort_by_difference(summaries, metric, descending=descending)
    st.dataframe(
        _summary_frame(result, summaries, metric),
        hide_index=True,
        width="stretch",
        key="eval_summary",
        column_config={"configuration": st.column_config.TextColumn(pinned=True)},
    )
    caption(
        "Δ: the paired difference against the baseline in points, over the same questions (paired "
        "bootstrap interval; p: McNemar's exact test). Rates: Wilson intervals."
    )
    _recommendation(result, report)
    summaries = report.configs
    caption(EXPECTED_ACCURACY_NOTE)
    _charts(ctx, result, summaries, report.recommendation)
    _disagreement_table(result)
    answers_table(result)
    d1, d2 = st.columns(2)
    d1.download_button("Download results.csv", results_csv(result), "results.csv", "text/csv", key="eval_csv")
    d2.download_button(
        "Download summary.json",
        json.dumps(result.summary(baseline=baseline), indent=2),
        "summary.json",
        "application/json",
        key="eval_json",
    )


def render(ctx: LabContext) -> None:
    """Draw the Evaluate view: pick a set and a grid, run, read the charts, open a question."""
    st.subheader("Evaluate", anchor=False)
    explain(
        "Which budget, placement and threshold keep the answering document in the prompt, where "
        "the model reads it, for the fewest tokens? Measured on labelled questions, no LLM needed."
    )
    evalset = _pick_set()
    if evalset is None:
        return
    grid, base, choices = _grid_controls(ctx, len(evalset))
    if st.session_state.get(OPENED_FROM_LINK) and st.session_state.get("eval_result") is None:
        info("These settings came with the link: press Run to reproduce the shared run.")
    n_configs = 1
    for values in grid.values():
        n_configs *= len(values)
    if st.button(f"Run: {choices.limit} questions × {n_configs} configurations", key="eval_run", type="primary"):
        _run(evalset, grid, base, choices)
    answer_with_model(evalset, grid, base, {"limit": choices.limit, "top_k": choices.top_k})
    measured_curve_section(ctx, "evaluate")
    result: EvalResult | None = st.session_state.get("eval_result")
    if result is None:
        st.info(f"Pick the settings to compare and press Run ({BUNDLED_SET} by default).")
        return
    _show(ctx, result)
