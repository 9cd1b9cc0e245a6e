"""The lab's figure builders: engine results in, plotly figures out, checked without a browser."""

from __future__ import annotations

import pytest

pytest.importorskip("plotly")

from contextlab import ContextManager, Document, PromptRequest  # noqa: E402
from contextlab.charts import budget, duplicates, overview, placement, style  # noqa: E402
from contextlab.stages.dedup import similarity_matrix  # noqa: E402
from contextlab.types import FATES, DocTrace  # noqa: E402

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
]


def _text(seed: int, n: int = 40) -> str:
    return " ".join(f"{WORDS[(seed * 7 + i * 3) % len(WORDS)]}{(seed * 31 + i) % 97}" for i in range(n))


@pytest.fixture(scope="module")
def result():
    docs = [Document(_text(i), score=1.0 - i * 0.05, source=f"doc{i}.md") for i in range(12)]
    docs.append(Document(docs[0].content, score=0.2, source="copy.md"))  # exact duplicate
    docs.append(Document("too short", score=0.9, source="short.md"))  # filtered
    return ContextManager(tokenizer="heuristic").build(PromptRequest(query="q", documents=docs, max_context_tokens=400))


def test_charts_sankey_flows_add_up_to_every_document(result):
    fig = overview.fate_sankey(result)
    sankey = fig.data[0]
    labels = list(sankey.node.label)
    counts = result.fate_counts()
    assert labels[0] == f"Input: {len(result.trace)}"
    assert f"Duplicate: {counts['duplicate']}" in labels
    assert f"Too short: {counts['filtered']}" in labels
    # Out of the input node flows every document exactly once.
    out_of_input = sum(v for s, v in zip(sankey.link.source, sankey.link.value, strict=False) if s == 0)
    assert out_of_input == len(result.trace)
    # The unique documents split once: into the block, or left out for the budget.
    final = {"In the block", "Left out for budget"}
    into_final = sum(
        v for t, v in zip(sankey.link.target, sankey.link.value, strict=False) if labels[t].split(":")[0] in final
    )
    assert into_final == len(result.trace) - counts["filtered"] - counts["duplicate"]
    in_block = counts["included"] + counts["truncated"] + counts["summarized"]
    assert f"In the block: {in_block}" in labels


def test_charts_sankey_leaves_out_empty_fates(result):
    labels = list(overview.fate_sankey(result).data[0].node.label)
    counts = result.fate_counts()
    assert ("Summarized: 0" in labels) is False
    assert counts["summarized"] == 0


def test_charts_heatmap_boxes_exactly_the_pairs_at_threshold():
    texts = [_text(1), _text(1) + " extra words here", _text(2), _text(3)]
    matrix = similarity_matrix(texts)
    fig = duplicates.similarity_heatmap(
        matrix, ["a", "b", "c", "d"], threshold=0.8, full_labels=["a long", "b long", "c long", "d long"]
    )
    boxed = {(int(s.y0 + 0.5), int(s.x0 + 0.5)) for s in fig.layout.shapes}
    # Each pair once: the lower triangle (row below column); the mirror half stays blank.
    expected = {(i, j) for i in range(4) for j in range(i) if matrix[i][j] >= 0.8}
    assert boxed == expected and (1, 0) in boxed
    heat = fig.data[0]
    assert heat.zmin == 0 and heat.zmax == 1
    assert heat.text[1][0] == f"{matrix[1][0]:.2f}" and heat.text[0][0] == ""  # values in cells
    assert heat.text[0][1] == "" and heat.z[0][1] is None and heat.z[1][0] == matrix[1][0]
    assert all(heat.text[i][j] == "" for i in range(4) for j in range(4) if matrix[i][j] < duplicates.CELL_TEXT_FLOOR)
    low = [(i, j) for i in range(4) for j in range(i) if 0 < matrix[i][j] < duplicates.CELL_TEXT_FLOOR]
    assert all(heat.z[i][j] == matrix[i][j] for i, j in low)  # unwritten, still on hover
    assert list(heat.y) == ["a long", "b long", "c long", "d long"]  # full labels on hover
    assert list(fig.layout.xaxis.ticktext) == ["a", "b", "c", "d"]  # short ones on the axes


def test_charts_histogram_counts_every_pair_and_marks_the_threshold():
    values = [0.05, 0.1, 0.5, 0.86, 0.9, 1.0]
    fig = duplicates.similarity_histogram(values, threshold=0.85)
    assert sum(fig.data[0].y) == len(values)
    line = fig.layout.shapes[0]
    assert line.x0 == pytest.approx(0.85)
    assert "3 pairs at or above" in fig.layout.annotations[0].text


def test_charts_placement_plots_every_block_document_at_its_position(result):
    placed = [t for t in result.trace if t.position is not None]
    curve = [70.0 - k for k in range(len(placed))]
    answer = placed[1].input_index
    fig = placement.placement_chart(result, curve, curve_label="GPT", middle=(2, 3), answer=[answer])
    dots = [t for t in fig.data if t.name.startswith("document")]
    assert sorted(p for t in dots for p in zip(t.x, t.y, strict=False)) == sorted(
        (t.position, t.relevance_rank) for t in placed
    )
    docs = dots[0]
    accuracy = next(t for t in fig.data if t.name == "accuracy: GPT")
    # one y-axis per panel: the curve on its own 0-100 % axis, the documents on theirs
    assert list(accuracy.y) == curve and accuracy.yaxis == "y" and docs.yaxis == "y2"
    assert list(fig.layout.yaxis.range) == [0, 100]
    low, high = fig.layout.yaxis2.range
    assert low > high >= 0.3  # reversed (rank 1 on top), no rank 0 tick
    shaded = fig.layout.shapes[0]
    assert (shaded.x0, shaded.x1) == (1.5, 3.5)
    ring = next(t for t in fig.data if t.name == "holds the answer")
    assert list(ring.x) == [placed[1].position]


def test_charts_placement_names_a_cut_document_in_its_legend_in_a_hue_apart_from_the_answer_ring():
    # 150-word documents at a budget of 2,000: nine whole, the tenth cut to fit
    docs = [Document(" ".join(f"w{i}{k}" for k in range(150)), score=1 - i / 40, source=f"d{i}") for i in range(27)]
    result = ContextManager(tokenizer="heuristic").build(
        PromptRequest(query="q", documents=docs, max_context_tokens=2000)
    )
    fig = placement.placement_chart(result, [50.0] * 10, answer=[0])
    names = {t.name: t for t in fig.data}
    assert {"document, whole", "document, cut to fit", "holds the answer"} <= set(names)
    assert names["document, cut to fit"].marker.color == style.FATE_COLORS["truncated"] == "#ef8f00"
    assert names["holds the answer"].marker.line.color == style.ANSWER_COLOR == "#212529"
    assert (fig.layout.yaxis2.tick0, fig.layout.yaxis2.dtick) == (1, 1)  # ten ranks: every one labelled
    deep = ContextManager(tokenizer="heuristic").build(
        PromptRequest(query="q", documents=docs, max_context_tokens=6000)
    )
    # 27 ranks in the block: a label every 5th rank from 1, not 27 crowding each other
    assert placement.placement_chart(deep, None).layout.yaxis2.dtick == 5


@pytest.mark.parametrize(("count", "step"), [(9, 1), (10, 1), (20, 2), (27, 5), (50, 5), (51, 10), (120, 20)])
def test_charts_rank_axis_labels_at_most_ten(count, step):
    assert placement.tick_step(count) == step


def test_charts_placement_labels_above_the_top_rank_are_not_clipped(result):
    # rank 1 is the top row of its panel: its label above the dot must not be cut at the axis
    # (in presentation mode the 18 px label did not fit; the browser test checks the pixels)
    fig = style.for_projector(placement.placement_chart(result, [50.0] * 6, answer=[0]))
    labelled = [t for t in fig.data if t.name.startswith("document") or t.name == "holds the answer"]
    assert labelled and all(t.cliponaxis is False for t in labelled)


def test_charts_placement_without_documents_is_an_empty_figure():
    empty = ContextManager().build(PromptRequest(query="q", documents=[]))
    fig = placement.placement_chart(empty, None)
    assert len(fig.data) == 0


def test_charts_budget_staircase_climbs_by_block_cost_and_shows_the_budget(result):
    fig = budget.budget_chart(result)
    included = next(t for t in fig.data if t.name == "Included")
    # Each included bar starts where the previous documents in the block ended.
    block = sorted((t for t in result.trace if t.position is not None), key=lambda t: t.relevance_rank)
    running, bases = 0, []
    for t in block:
        if t.fate == "included":
            bases.append(running)
        running += t.block_tokens
    assert list(included.base) == bases
    assert fig.layout.shapes[0].y0 == result.tokens_budget
    excluded = [t for t in result.trace if t.fate == "excluded"]
    if excluded:
        over = next(t for t in fig.data if t.name == "Left out for budget")
        assert len(over.x) == len(excluded)


def test_charts_budget_shows_the_cut_part_of_a_truncated_document():
    docs = [Document(_text(i, 120), score=1 - i / 10, source=f"d{i}") for i in range(3)]
    result = ContextManager(tokenizer="heuristic").build(
        PromptRequest(query="q", documents=docs, max_context_tokens=300)
    )
    assert result.fate_counts()["truncated"] == 1
    fig = budget.budget_chart(result)
    names = [t.name for t in fig.data]
    assert "Truncated" in names and "Cut away" in names
    truncated = next(t for t in result.trace if t.fate == "truncated")
    cut = next(t for t in fig.data if t.name == "Cut away")
    assert cut.y[0] == truncated.tokens - truncated.block_tokens


def test_charts_tokenizer_comparison_has_one_point_per_document():
    fig = budget.tokenizer_comparison(["a", "b"], [13, 26], [11, 30])
    points = fig.data[1]
    assert list(points.x) == [13, 26] and list(points.y) == [11, 30]
    assert fig.data[0].x[1] == 30  # the diagonal spans the largest count


def test_charts_doc_label_shortens_long_sources_from_the_middle():
    label = style.doc_label(DocTrace(3, "a/very/long/path/to/some/file.md", 1.0, 10), width=12)
    assert label == "D3 · a/ve…file.md"


def test_charts_doc_label_tells_apart_documents_with_the_same_source():
    one, two = (style.doc_label(DocTrace(i, "notes.txt", 1.0, 10)) for i in (0, 5))
    assert one != two and one.startswith("D0") and two.startswith("D5")


def test_charts_label_escapes_plotly_markup_and_shows_bidi_controls():
    hostile = '<a href="https://evil.example">x</a> <b>bold</b><br>&amp; \u202egnp.exe'
    shown = style.label(hostile)
    assert "<" not in shown and ">" not in shown
    assert "&lt;a href=" in shown and "&amp;amp;" in shown
    assert "\u202e" not in shown and "⟨U+202E⟩" in shown


def test_charts_label_is_html_escape_without_quotes():
    assert style.label('<a href="x">Q&A</a>') == '&lt;a href="x"&gt;Q&amp;A&lt;/a&gt;'
    assert style.label("plain 'text'") == "plain 'text'"


def test_charts_every_figure_escapes_user_sources():
    docs = [
        Document(f"{_text(i)} <b>x</b>", score=1 - i / 10, source=f"<a href='https://e.x'>s{i}</a>") for i in range(5)
    ]
    docs.append(Document(docs[0].content, score=0.1, source="<b>copy</b>"))
    result = ContextManager(tokenizer="heuristic").build(
        PromptRequest(query="q", documents=docs, max_context_tokens=120)
    )
    labels = [style.doc_label(t) for t in result.trace]
    figures = [
        overview.fate_sankey(result),
        budget.budget_chart(result),
        placement.placement_chart(result, [50.0] * 6, answer=[0]),
        duplicates.similarity_heatmap([[1.0] * 6] * 6, labels, 0.8),
        budget.tokenizer_comparison(labels, [1] * 6, [1] * 6),
    ]
    for fig in figures:
        spec = fig.to_json()
        assert "<a href" not in spec and "<b>" not in spec, spec[:300]


def test_charts_fate_labels_and_colours_cover_every_engine_fate():
    assert set(style.FATE_LABELS) == set(FATES) == set(style.FATE_COLORS)


def test_charts_for_projector_enlarges_every_text():
    fig = style.for_projector(overview.fate_sankey(ContextManager().build(PromptRequest("q", []))))
    assert fig.layout.font.size == 18 and fig.data[0].textfont.size == 18


def test_charts_import_loads_neither_streamlit_nor_the_lab():
    import subprocess
    import sys

    code = (
        "import sys, contextlab.charts; "
        "print(sorted(m for m in sys.modules if m == 'streamlit' or m.startswith('contextlab.ui')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_charts_sankey_counts_a_shortened_document_in_the_block_once():
    docs = [Document(_text(i, 120), score=1 - i / 10, source=f"d{i}") for i in range(3)]
    result = ContextManager(tokenizer="heuristic").build(
        PromptRequest(query="q", documents=docs, max_context_tokens=300)
    )
    labels = list(overview.fate_sankey(result).data[0].node.label)
    # one whole, one cut to fit, one left out: the block holds two, the cut one among them
    assert {"In the block: 2", "Whole: 1", "Truncated: 1", "Left out for budget: 1"} <= set(labels)


def test_charts_budget_staircase_follows_the_walk_it_is_given():
    docs = [Document(_text(i, 30), score=1 - i / 10, source=f"w{i}") for i in range(5)]
    result = ContextManager.seed_compatible().build(PromptRequest(query="q", documents=docs, max_context_tokens=140))
    # seed 000 places first (lost in the middle: ranks 1 3 5 4 2), then walks that order
    fig = budget.budget_chart(result, [0, 2, 4, 3, 1], walk_label="block order")
    order = list(fig.layout.xaxis.categoryarray)
    assert [o.split(" · ")[0] for o in order] == ["D0", "D2", "D4", "D3", "D1"]
    assert "block order" in fig.layout.xaxis.title.text
