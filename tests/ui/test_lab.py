"""AppTest tests of the lab shell and its five core views, driven through the widgets."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from contextlab import ContextManager, Document, PromptRequest
from contextlab.lab.config import LabConfig
from contextlab.lab.samples import load_sample_set

from .conftest import APP, TIMEOUT, metric, open_lab, run, specs, switch_view, table, texts, unescape

# The lab's pages run through Streamlit (AppTest): the framework for real, ~0.5 s a test.
pytestmark = pytest.mark.integration

CORE_VIEWS = ["overview", "duplicates", "placement", "budget", "final"]
ALL_VIEWS = [*CORE_VIEWS, "compare", "learn", "window", "chunks"]


# -- first open ------------------------------------------------------------------------------


def test_lab_opens_alive_on_the_default_sample():
    at = open_lab()
    sample = load_sample_set("support_faq")
    assert at.radio(key="doc_source").value == "sample"
    assert at.text_area(key="cfg_query").value == sample.query
    # Literal: 29 documents, 4 copies removed, 971 tokens: the sample set opens at the budget it
    # states (1024; the engine's 2048 would use 2,033) with the default engine.
    assert metric(at, "Documents in") == "29"
    assert metric(at, "Duplicates removed") == "4"
    assert metric(at, "Tokens used") == "971"
    # the headline row adds up to the input, the too-short documents included (7 + 15 + 4 + 3)
    row = [int(metric(at, m)) for m in ("In the block", "Left out for budget", "Duplicates removed", "Too short")]
    assert row == [7, 15, 4, 3] and sum(row) == 29
    sankey = specs(at)[0]["data"][0]
    assert sankey["type"] == "sankey"
    assert sankey["node"]["label"][0] == f"Input: {len(sample.documents)}"
    trace_table = table(at, "why")
    assert len(trace_table) == len(sample.documents)
    assert trace_table["why"].str.len().min() > 0  # every document says why


@pytest.mark.parametrize("view", CORE_VIEWS)
def test_lab_every_core_view_draws_and_explains_itself(view):
    at = open_lab(view=view)
    assert at.segmented_control(key="view").value == view
    explanation = at.markdown[0].value if at.markdown else ""
    assert any(len(m.value) > 80 for m in at.markdown), "a view opens with a sentence or two"
    assert explanation


# -- parameters -------------------------------------------------------------------------------


def test_lab_budget_slider_rebuilds_and_goes_into_the_url():
    at = open_lab()
    at.select_slider(key="budget_step").set_value(384)
    run(at)
    assert at.number_input(key="budget_exact").value == 384  # the box follows the slider
    at.number_input(key="budget_exact").set_value(400)
    run(at)
    tokens = next(m for m in at.metric if m.label == "Tokens used")
    assert int(tokens.value.replace(",", "")) <= 400 and "of 400" in tokens.delta
    assert at.query_params["max_context_tokens"] == "400"
    assert json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["type"] == "sankey"


def test_lab_threshold_slider_changes_the_duplicates_found():
    at = open_lab(view="duplicates")
    before = len(table(at, "dropped"))
    at.slider(key="cfg_dedup_threshold").set_value(0.3)
    run(at)
    after = len(table(at, "dropped"))
    assert after > before
    assert not specs(at), "the heatmap and the histogram wait to be opened"
    at.session_state["dup_histogram_open"] = True  # what a click on its expander does
    at.session_state["dup_heatmap_open"] = True
    at = run(at)
    histogram = next(s for s in specs(at) if s["data"][0]["type"] == "bar")
    assert histogram["layout"]["shapes"][0]["x0"] == pytest.approx(0.3)
    heatmap = next(s for s in specs(at) if s["data"][0]["type"] == "heatmap")
    boxed = len(heatmap["layout"].get("shapes", []))
    assert boxed >= after  # every pair at or above 0.3 is boxed: at least one per dropped document
    assert at.query_params["dedup_threshold"] == "0.3"


def test_lab_seed_compatible_switch_reproduces_the_seed():
    at = open_lab(view="final")
    at.toggle(key="cfg_seed_compatible").set_value(True)
    run(at)
    sample = load_sample_set("support_faq")
    seed = ContextManager.seed_compatible().build(
        PromptRequest(query=sample.query, documents=sample.documents, max_context_tokens=1024)
    )
    assert at.code[0].value == seed.context_block
    assert at.radio(key="cfg_tokenizer__seed_fixed").disabled
    assert at.query_params["seed_compatible"] == "true"


def test_lab_reset_restores_default_parameters():
    at = open_lab(max_context_tokens="300", dedup_threshold="0.5")
    at.button(key="reset_parameters").click()
    run(at)
    # the defaults, at the budget the sample set opens at (support_faq states 1024)
    assert at.select_slider(key="budget_step").value == 1024
    assert at.slider(key="cfg_dedup_threshold").value == LabConfig().dedup_threshold


# -- documents --------------------------------------------------------------------------------


def test_lab_sample_choice_brings_its_documents_and_question():
    at = open_lab()
    other = "eng_postmortems"
    at.selectbox(key="sample_name").set_value(other)
    run(at)
    sample = load_sample_set(other)
    assert at.text_area(key="cfg_query").value == sample.query
    assert metric(at, "Documents in") == str(len(sample.documents))
    assert at.query_params["sample"] == other


def test_lab_pasted_documents_are_scored_against_the_query():
    at = open_lab(view="final")
    at.radio(key="doc_source").set_value("paste")
    run(at)
    assert any("No documents yet" in i.value for i in at.info)
    at.text_area(key="paste_text").input(
        "Annual plans are refunded pro rata within six months of purchase.\n\n---\n\n"
        "Our office dog is called Biscuit and loves long walks in the park."
    )
    at.text_area(key="cfg_query").input("annual plan refund")
    run(at)
    assert any("scored against the query" in i.value for i in at.info)
    block = at.code[0].value
    # The refund document matches the query, so it is first; the other scores 0.
    assert block.index("Annual plans") < block.index("Biscuit")
    assert "(relevance: 0.00)" in block


def test_lab_user_text_is_shown_literally_never_as_html_or_markdown():
    hostile = "<script>alert('x')</script> **not bold** <img src=x onerror=alert(1)> # not a heading"
    copy = f"{hostile} and the same words again for a near copy"
    text = f"{copy}\n\n---\n\n{copy}!"
    at = open_lab()
    at.radio(key="doc_source").set_value("paste")
    run(at)
    at.text_area(key="paste_text").input(text)
    run(at)
    switch_view(at, "final")
    assert hostile in at.code[0].value  # st.code: shown as typed
    switch_view(at, "duplicates")
    bodies = [h.proto.body for h in at.html]
    assert bodies, "the side-by-side pair view is drawn"
    for body in bodies:
        assert "<script" not in body and "<img" not in body
        assert "&lt;script&gt;" in body and "**not bold**" in body
    for element in [*at.markdown, *at.caption]:
        assert "<script" not in element.value and "**not bold**" not in element.value


def test_lab_upload_reads_every_file_and_reports_a_bad_one():
    at = open_lab()
    at.radio(key="doc_source").set_value("upload")
    run(at)
    good = (
        b'{"content": "Refunds for annual plans are pro rata in the first six months.", '
        b'"score": 0.9, "source": "kb/refunds.md"}\n'
    )
    csv = b"text,score,source\nCancel any time from Settings and Billing pages,0.4,kb/cancel.md\n"
    at.file_uploader(key="upload_files").set_value(
        [
            ("docs.jsonl", good, "application/json"),
            ("more.csv", csv, "text/csv"),
            ("broken.json", b'[{"content": "x",}]', "application/json"),
        ]
    )
    run(at)
    errors = [unescape(e.value) for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("broken.json")
    assert metric(at, "Documents in") == "2"
    assert "Upload: docs.jsonl, more.csv, broken.json" in unescape(at.caption[0].value)


def test_lab_only_bad_upload_says_so_in_the_main_area():
    at = open_lab()
    at.radio(key="doc_source").set_value("upload")
    run(at)
    at.file_uploader(key="upload_files").set_value([("bad.jsonl", b'{"content": broken\n', "application/json")])
    run(at)
    errors = [unescape(e.value) for e in at.error]
    assert any(e.startswith("bad.jsonl: line 1") for e in errors)  # in the sidebar
    assert any(e.startswith("Nothing to build") for e in errors)  # and where the eye is
    assert not any("No documents yet" in i.value for i in at.info)


def test_lab_load_uploads_handler_keeps_good_files_and_names_the_bad():
    from contextlab.ui.loading import load_uploads

    docs, errors = load_uploads(
        [("a.txt", b"first document here\n\nsecond document here"), ("b.csv", b"title,url\n1,2\n")]
    )
    assert [d.content for d in docs] == ["first document here", "second document here"]
    assert len(errors) == 1 and errors[0].startswith("b.csv")


def test_lab_table_source_edits_documents():
    at = open_lab()
    at.radio(key="doc_source").set_value("table")
    run(at)
    editor = at.data_editor[0]
    assert list(editor.value.columns[:3]) == ["content", "score", "source"]
    assert len(editor.value) == len(load_sample_set("support_faq").documents)


def test_lab_documents_from_table_applies_edits_and_blank_scores():
    from contextlab.ui.table import documents_from_table

    originals = [
        Document("one two three", 0.5, "a.md", metadata={"lang": "en"}),
        Document("four five six", 0.7, "b.md"),
    ]
    frame = pd.DataFrame(
        {
            "content": ["one two three edited", "", "a brand new row"],
            "score": [0.9, 0.1, None],
            "source": ["a.md", "b.md", ""],
            "_row": [0, 1, None],
        }
    )
    docs = documents_from_table(frame, originals)
    assert [d.content for d in docs] == ["one two three edited", "a brand new row"]
    assert docs[0].score == 0.9 and docs[0].metadata == {"lang": "en"}
    assert docs[1].source is None and docs[1].metadata == {"score_missing": True}


# -- errors -----------------------------------------------------------------------------------


def test_lab_engine_value_errors_are_shown_not_raised(monkeypatch):
    from contextlab.errors import InvalidInputError

    lab_main = importlib.import_module("contextlab.ui.shell")

    def broken(documents, config):
        raise InvalidInputError("documents[3].score must be a finite number, got nan")

    monkeypatch.setattr(lab_main, "build_cached", broken)
    at = open_lab()
    assert [unescape(e.value) for e in at.error] == ["documents[3].score must be a finite number, got nan"]


# Only bad input (InvalidInputError) is shown as a message; any other error, a ValueError too, is a bug.
@pytest.mark.parametrize("raised", [RuntimeError("a bug"), ValueError("a bug, not bad input")])
def test_lab_other_errors_are_not_swallowed(monkeypatch, raised):
    lab_main = importlib.import_module("contextlab.ui.shell")

    def broken(documents, config):
        raise raised

    monkeypatch.setattr(lab_main, "build_cached", broken)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert at.exception and str(raised) in at.exception[0].value
    assert not at.error


# -- sharing ----------------------------------------------------------------------------------


def test_lab_url_parameters_open_the_same_view():
    at = open_lab(
        view="budget",
        max_context_tokens="700",
        dedup_threshold="0.6",
        tokenizer="heuristic",
        placement="relevance",
        sample="clinical_abstracts",
    )
    assert at.segmented_control(key="view").value == "budget"
    assert at.select_slider(key="budget_step").value == 700  # any budget, not only the common ones
    assert at.number_input(key="budget_exact").value == 700
    assert at.slider(key="cfg_dedup_threshold").value == 0.6
    assert at.radio(key="cfg_tokenizer").value == "heuristic"
    assert at.selectbox(key="cfg_placement").value == "relevance"
    assert at.selectbox(key="sample_name").value == "clinical_abstracts"
    budget_line = specs(at)[0]["layout"]["shapes"][0]
    assert budget_line["y0"] == 700
    # The URL written back is the one that was opened.
    assert at.query_params["view"] == "budget" and at.query_params["max_context_tokens"] == "700"


def test_lab_bad_url_values_warn_and_the_lab_still_opens():
    at = open_lab(max_context_tokens="lots", view="nowhere", sample="nope")
    warnings = " ".join(unescape(w.value) for w in at.warning)
    assert "max_context_tokens='lots'" in warnings and "view='nowhere'" in warnings and "sample='nope'" in warnings
    assert at.select_slider(key="budget_step").value == 1024  # what support_faq opens at
    assert at.segmented_control(key="view").value == "overview"
    run(at)  # the next interaction: the link's warnings have been read
    assert not at.warning


def test_lab_exported_configuration_imports_back_to_the_same_result(downloads):
    at = open_lab(
        view="final", max_context_tokens="650", dedup_threshold="0.7", min_doc_tokens="12", summarize_overflow="true"
    )
    exported = downloads["contextlab-config.json"]
    block = at.code[0].value
    assert LabConfig.from_json(exported).max_context_tokens == 650

    fresh = open_lab(view="final")
    assert fresh.code[0].value != block
    fresh.file_uploader(key="import_config").set_value(
        ("contextlab-config.json", exported.encode(), "application/json")
    )
    run(fresh)
    assert fresh.select_slider(key="budget_step").value == 650
    assert fresh.toggle(key="cfg_summarize_overflow").value is True
    assert fresh.code[0].value == block


def test_lab_import_of_a_bad_configuration_is_an_error_message():
    at = open_lab()
    at.file_uploader(key="import_config").set_value(("c.json", b'{"max_context_tokens": -5}', "application/json"))
    run(at)
    assert any("max_context_tokens must be a whole number >= 0" in unescape(e.value) for e in at.error)


def test_lab_code_snippet_rebuilds_the_block_outside_a_checkout(tmp_path, monkeypatch, capsys):
    at = open_lab(max_context_tokens="512", tokenizer="heuristic", view="final")
    block = at.code[0].value
    snippet = next(c.value for c in at.code if "ContextManager" in c.value)
    assert "max_context_tokens=512" in snippet and "tokenizer='heuristic'" in snippet
    # a bundled sample is loaded by name from the package, not from a checkout's sample_data/
    assert "sample_data" not in snippet and "load_sample_set('support_faq')" in snippet
    monkeypatch.chdir(tmp_path)  # no sample_data/ here, as in a project using an installed wheel
    namespace: dict = {}
    exec(snippet, namespace)
    assert namespace["result"].context_block == block
    assert capsys.readouterr().out.strip() == block.strip()


def test_lab_final_block_downloads_the_block_and_the_result(downloads):
    at = open_lab(view="final")
    assert downloads["context.txt"] == at.code[0].value
    result = json.loads(downloads["context_result.json"])
    assert result["context_block"] == at.code[0].value
    assert len(result["trace"]) == len(load_sample_set("support_faq").documents)
    citations = table(at, "citation")
    assert list(citations["citation"]) == [f"[{n}]" for n in range(1, len(citations) + 1)]


# -- presentation -----------------------------------------------------------------------------


def test_lab_presentation_mode_from_the_url_enlarges_type_and_keeps_one_view():
    at = open_lab(present="1", view="placement")
    assert at.toggle(key="present").value is True
    assert any("<style>" in h.proto.body for h in at.html)
    layout = specs(at)[0]["layout"]
    assert layout["font"]["size"] == 18
    assert at.query_params["present"] == "1" and at.query_params["view"] == "placement"


def test_lab_presentation_toggle_goes_into_the_url():
    at = open_lab()
    at.toggle(key="present").set_value(True)
    run(at)
    assert at.query_params["present"] == "1"
    at.toggle(key="present").set_value(False)
    run(at)
    assert "present" not in at.query_params


@pytest.mark.parametrize("view", ALL_VIEWS)
@pytest.mark.parametrize(
    "params",
    [
        {"max_context_tokens": "0"},
        {"min_doc_tokens": "10000"},
        {"seed_compatible": "true", "max_context_tokens": "700"},
        {"summarize_overflow": "true", "max_context_tokens": "1500", "dedup_threshold": "0.3"},
    ],
    ids=["zero-budget", "all-filtered", "seed", "summarize"],
)
def test_lab_every_view_survives_extreme_parameters(view, params):
    at = open_lab(view=view, **params)
    assert not at.error
    assert at.segmented_control(key="view").value == view


def test_lab_packaged_entry_point_draws_the_same_lab():
    packaged = str(Path(__file__).resolve().parents[2] / "contextlab" / "ui" / "streamlit_app.py")
    at = AppTest.from_file(packaged, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert [m.value for m in at.metric] == [m.value for m in open_lab().metric]


def test_lab_view_switch_offers_every_registered_view_in_order():
    from contextlab.ui.views import VIEWS

    at = open_lab()
    assert list(at.segmented_control(key="view").options) == [label for label, _ in VIEWS.values()]
    assert list(VIEWS)[: len(ALL_VIEWS)] == ALL_VIEWS


def test_lab_overview_says_what_the_seed_design_would_do():
    at = open_lab()
    sample = load_sample_set("support_faq")
    seed = ContextManager.seed_compatible().build(
        PromptRequest(query=sample.query, documents=sample.documents, max_context_tokens=1024)
    )
    line = next(c.value for c in at.caption if "original algorithm" in c.value)
    assert f"{seed.tokens_used:,} tokens by its words × 1.3 estimate" in line
    at.toggle(key="cfg_seed_compatible").set_value(True)
    run(at)
    assert not any("original algorithm" in c.value for c in at.caption)


def test_lab_pasted_text_survives_a_look_at_a_sample():
    at = open_lab()
    at.radio(key="doc_source").set_value("paste")
    run(at)
    at.text_area(key="paste_text").input("A pasted document about refunds for annual plans.")
    run(at)
    at.radio(key="doc_source").set_value("sample")
    run(at)
    at.radio(key="doc_source").set_value("paste")
    run(at)
    assert at.text_area(key="paste_text").value == "A pasted document about refunds for annual plans."


def test_lab_scenario_opens_its_sample_settings_and_view():
    at = open_lab()
    at.selectbox(key="scenario").set_value("second_best_cut")
    run(at)
    assert at.session_state["sample_name"] == "eng_postmortems"
    assert at.session_state["cfg_max_context_tokens"] == 1000
    assert at.session_state["view"] == "compare"
    assert at.session_state["cmp_b_seed_compatible"] is True
    # the story is told in the main area, above the view, with the answer document placed
    story = texts(at)
    assert "second most relevant document" in story
    assert "contextlab's default (A) keeps it at pos 6 of 6; the original engine (B) leaves it out." in story
    assert "★ The answer, D23 · wiki/postmortems/2025-11-12-checkout-latency.md (rank 2), is at pos 6 of 6." in story


def test_lab_scenario_middle_opens_placement_without_reorder():
    at = open_lab()
    at.selectbox(key="scenario").set_value("lost_in_the_middle")
    run(at)
    assert at.session_state["view"] == "placement"
    assert at.session_state["cfg_placement"] == "relevance"
    assert at.session_state["sample_name"] == "clinical_abstracts"


@pytest.mark.parametrize("view", ALL_VIEWS)
def test_lab_every_view_takes_negative_and_tied_scores(view):
    # Some retrievers hand back logits: negative scores must not break any view.
    records = [
        {
            "content": f"document {i} about annual plan refunds and the billing page number {i}",
            "score": score,
            "source": f"d{i}.md",
        }
        for i, score in enumerate([-2.5, -0.1, 0.0, 0.0, 3.7, -7.0])
    ]
    at = open_lab(view=view)
    at.radio(key="doc_source").set_value("paste")
    run(at)
    at.text_area(key="paste_text").input(json.dumps(records))
    run(at)
    assert not at.error, [unescape(e.value) for e in at.error]
    assert at.segmented_control(key="view").value == view


def test_lab_seed_mode_sidebar_shows_what_the_engine_uses_and_keeps_the_users_choice():
    at = open_lab()
    assert at.radio(key="cfg_tokenizer").value == "cl100k_base"
    at = run(at.toggle(key="cfg_seed_compatible").set_value(True))
    shown = at.radio(key="cfg_tokenizer__seed_fixed")
    assert shown.value == "heuristic" and shown.disabled
    assert at.toggle(key="cfg_budget_includes_headers__seed_fixed").value is False
    at = run(at.toggle(key="cfg_seed_compatible").set_value(False))
    assert at.radio(key="cfg_tokenizer").value == "cl100k_base"
    assert at.toggle(key="cfg_budget_includes_headers").value is True


def test_lab_a_link_made_on_own_documents_says_it_cannot_reproduce_them():
    at = open_lab()
    at.radio(key="doc_source").set_value("paste")
    run(at)
    at.text_area(key="paste_text").input("A pasted note about invoices.\n\n---\n\nAnother about seats.")
    run(at)
    at.text_area(key="cfg_query").input("how are seats billed")
    at = run(at)
    link = dict(at.query_params)
    assert link["source"] == "paste" and "sample" not in link
    reopened = open_lab(**{k: v[0] if isinstance(v, list) else v for k, v in link.items()})
    said = " ".join(unescape(w.value) for w in reopened.warning)
    assert "This link was made on pasted documents, which a link cannot carry, so it cannot reproduce" in said
    # the sample's own question, not the link's, over the sample's documents
    assert reopened.text_area(key="cfg_query").value == load_sample_set("support_faq").query


def test_lab_pasted_documents_are_scored_against_the_query_typed_for_them():
    at = open_lab()
    at.radio(key="doc_source").set_value("paste")
    at = run(at)
    # the sample's question is not carried over to documents it was not asked of
    assert at.text_area(key="cfg_query").value == ""
    at.text_area(key="paste_text").input("Seats are billed monthly per member.\n\n---\n\nInvoices go out on the 1st.")
    at = run(at)
    at.text_area(key="cfg_query").input("seats billing")
    at = run(at)
    assert any("scored against the query “seats billing”" in unescape(i.value) for i in at.info)


def test_lab_warns_beside_the_uploader_when_a_file_name_holds_bidi_controls():
    at = open_lab()
    at.radio(key="doc_source").set_value("upload")
    at = run(at)
    at.file_uploader(key="upload_files").set_value(
        [("invoice\u202etxt.md", b"Refunds take five days.", "text/markdown")]
    )
    at = run(at)
    said = [unescape(w.value) for w in at.sidebar.warning]
    assert any("may show it reordered. Its real name: invoice⟨U+202E⟩txt.md" in w for w in said)


def test_lab_a_scenario_link_opens_the_scenario_and_round_trips():
    at = open_lab(scenario="second_best_cut")
    assert at.session_state["cfg_max_context_tokens"] == 1000
    assert at.session_state["view"] == "compare" and at.session_state["sample_name"] == "eng_postmortems"
    assert at.session_state["cmp_b_seed_compatible"] is True
    # the link names the scenario, its sample and view, and no setting the scenario sets itself
    assert "max_context_tokens" not in at.query_params and at.query_params["scenario"] == "second_best_cut"
    at.number_input(key="budget_exact").set_value(900)
    at = run(at)
    link = {k: v[0] if isinstance(v, list) else v for k, v in dict(at.query_params).items()}
    assert link["max_context_tokens"] == "900" and link["scenario"] == "second_best_cut"
    again = open_lab(**link)
    assert again.session_state["cfg_max_context_tokens"] == 900
    assert again.session_state["cfg_query"] == at.session_state["cfg_query"]
    assert again.session_state["view"] == "compare"


def test_lab_budget_chart_walks_in_the_engines_order_in_seed_mode():
    # seed 000 places first and walks the block order: the chart's order is that walk, whose
    # documents in the block keep their block order (the engine walks, then formats, in that order)
    at = open_lab(view="budget", seed_compatible="true")
    spec = next(s for s in specs(at) if s["layout"]["title"]["text"].startswith("Filling"))
    order = [tick.split(" · ")[0] for tick in spec["layout"]["xaxis"]["categoryarray"]]
    sample = load_sample_set("support_faq")
    result = ContextManager.seed_compatible().build(
        PromptRequest(query=sample.query, documents=sample.documents, max_context_tokens=1024)
    )
    block = [f"D{t.input_index}" for t in sorted((t for t in result.trace if t.position), key=lambda t: t.position)]
    assert [d for d in order if d in block] == block
    by_rank = [
        f"D{t.input_index}"
        for t in sorted(
            (t for t in result.trace if t.fate not in ("filtered", "duplicate")), key=lambda t: t.relevance_rank
        )
    ]
    assert order != by_rank, "seed mode does not walk by relevance"
    assert "block order (placed first, as the original algorithm)" in spec["layout"]["xaxis"]["title"]["text"]


def test_lab_says_so_when_a_new_sample_set_resets_the_budget():
    at = open_lab(max_context_tokens="700")
    at = run(at.selectbox(key="sample_name").set_value("clinical_abstracts"))
    assert at.session_state["cfg_max_context_tokens"] == 1024
    assert (
        "Budget set to 1,024 tokens (it was 700): the budget the sample set “Literature search: early "
        "mobilisation after hip fracture surgery” opens at."
    ) in [c.value for c in at.caption]
    at = run(at.selectbox(key="sample_name").set_value("support_faq"))  # 1,024 again: nothing changed, nothing said
    assert not [c for c in at.caption if c.value.startswith("Budget set to")]
