"""contextlab.evaluation on small hand-made sets: loading, grids, metrics, aggregates, output."""

from __future__ import annotations

import csv
import gzip
import json
import subprocess
import sys
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextlab import ContextManager, Document, PromptRequest
from contextlab.curves.published import load_position_curves
from contextlab.errors import InvalidInputError, LoadError
from contextlab.evaluation import (
    METRIC_COLUMNS,
    EvalQuestion,
    RunOptions,
    bootstrap_interval,
    expand_grid,
    gold_zone,
    grid_keys,
    load_eval_set,
    normalize_answer,
    parse_eval_records,
    parse_grid,
    prepare_question,
    question_metrics,
    run_evaluation,
    write_results,
)
from tests.helpers import eval_row

# Unrelated texts of about the same length: distinct enough that no two are near copies.
_FILLERS = (
    "Tide pools on rocky shores hold anemones, crabs and small fish between the waves each day.",
    "The orchestra tuned its strings while the conductor studied the score for the last movement.",
    "Sourdough bread rises slowly because wild yeast and bacteria ferment the flour overnight.",
    "Glaciers carve wide valleys as they creep downhill, dragging boulders across the bedrock.",
    "A chess opening trades a pawn for quick development and pressure on the centre squares.",
    "Bees communicate where flowers grow by dancing in figure eights inside the dark hive.",
    "Old lighthouses used clockwork to turn their lenses so that ships saw a regular flash.",
    "Marathon runners drink small amounts of water often rather than large gulps at once.",
    "Volcanic soil is rich in minerals, which is why vineyards climb the slopes of the mountain.",
    "Printing presses spread pamphlets quickly, and news travelled between cities within weeks.",
)


def filler(i: int) -> str:
    """Return the i-th unrelated filler text (10 of them, none a near copy of another)."""
    return _FILLERS[i % len(_FILLERS)]


def _docs(n: int) -> list[dict]:
    return [{"content": filler(i), "source": f"doc-{i}", "score": round(1 - i / 100, 2)} for i in range(n)]


def _user_set(tmp_path, records) -> str:
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return str(path)


# -- answers and grids ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("The Beatles!", "beatles"),
        ("  Wilhelm   Conrad Röntgen. ", "wilhelm conrad röntgen"),
        ("an apple, a pear", "apple pear"),
        ("Theatre", "theatre"),
    ],
)
def test_normalize_answer_follows_squad(raw, expected):
    assert normalize_answer(raw) == expected


@pytest.mark.slow
@given(
    st.lists(
        st.sampled_from(["The", "a", "an", "Theatre", "x.y", "!", " ", "\n", "\t", "Ann", "-", "é"]), max_size=30
    ).map("".join)
)
def test_normalized_block_equals_normalizing_the_whole_text(text):
    from contextlab.evaluation.metrics import normalized_block

    assert normalized_block(text) == normalize_answer(text)


def test_parse_grid_unknown_key_lists_valid_keys():
    with pytest.raises(InvalidInputError) as err:
        parse_grid(["budgte=256"])
    message = str(err.value)
    assert "\n" not in message
    assert "budgte" in message and all(k in message for k in grid_keys())


def test_parse_grid_takes_the_librarys_names_only():
    # The library has no alias; the command line spells its short keys (``budget``) in cli/flags.py.
    with pytest.raises(InvalidInputError, match="unknown grid key 'budget'; valid keys: max_context_tokens"):
        parse_grid(["budget=256,512"])
    grid = parse_grid(["max_context_tokens=256,512"])
    assert [c.label for c in expand_grid(grid)] == ["max_context_tokens=256", "max_context_tokens=512"]


@pytest.mark.parametrize(
    "spec, match",
    [
        (["max_context_tokens=abc"], "max_context_tokens.*whole number"),
        (["dedup_threshold=1.5"], "dedup_threshold"),
        (["placement=middle_out"], "placement"),
        (["max_context_tokens=256", "max_context_tokens=512"], "twice"),
        (["max_context_tokens"], "KEY=V1,V2"),
        (["max_context_tokens=1:100000:1"], "larger step"),
    ],
)
def test_parse_grid_rejects_bad_specs(spec, match):
    with pytest.raises(InvalidInputError, match=match):
        parse_grid(spec)


def test_parse_grid_types_values_and_expands_ranges():
    grid = parse_grid(
        ["max_context_tokens=256:1024:256", "placement=relevance,lost_in_the_middle", "seed_compatible=false"]
    )
    assert grid == {
        "max_context_tokens": [256, 512, 768, 1024],
        "placement": ["relevance", "lost_in_the_middle"],
        "seed_compatible": [False],
    }
    configs = expand_grid(grid)
    assert len(configs) == 8
    assert configs[0].label == "max_context_tokens=256 placement=relevance seed_compatible=false"
    assert configs[0].config.max_context_tokens == 256 and configs[-1].config.placement == "lost_in_the_middle"


# -- loading -------------------------------------------------------------------------------


def test_load_eval_set_user_format_marks_gold_by_source(tmp_path):
    path = _user_set(tmp_path, [{"id": "a", "query": "q?", "documents": _docs(3), "gold_sources": ["doc-2"]}])
    evalset = load_eval_set(path)
    q = evalset.questions[0]
    prep = prepare_question(q, q.documents)
    assert q.query_id == "a" and prep.gold == [2] and prep.gold_rank == 3


def test_load_eval_set_paper_format_uses_isgold_and_keeps_file_order(tmp_path):
    ctxs = [{"title": f"T{i}", "text": filler(i), "isgold": i == 4, "hasanswer": i == 4} for i in range(6)]
    path = tmp_path / "paper.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"question": "which number?", "answers": ["number 4"], "ctxs": ctxs}) + "\n")
    q = load_eval_set(str(path)).questions[0]
    prep = prepare_question(q, q.documents)
    assert [d.source for d in q.documents] == [f"T{i}" for i in range(6)]
    assert prep.gold == [4] and prep.gold_rank == 5


def test_parse_eval_records_answers_only_infers_gold_from_text():
    docs = _docs(4)
    docs[3]["content"] = "The answer is the Eiffel Tower, in Paris."
    q = parse_eval_records([{"query": "where?", "documents": docs, "answers": ["Eiffel tower"]}]).questions[0]
    assert prepare_question(q, q.documents).gold == [3]


@pytest.mark.parametrize(
    "records, match",
    [
        ([{"query": "q", "documents": ["some text here"]}], "no question has gold documents or answers"),
        ([{"query": "q", "answers": ["x"]}], "--store"),
        ([{"documents": ["x"], "answers": ["x"]}], 'needs a "query"'),
        ([{"query": "q", "answers": "x", "documents": "oops"}], '"documents" must be a list'),
        ([], "holds no questions"),
    ],
)
def test_parse_eval_records_bad_sets_are_one_clear_error(records, match):
    with pytest.raises(LoadError, match=match):
        parse_eval_records(records, name="set.jsonl")


def test_load_eval_set_retrieves_from_a_store(tmp_path):
    from contextlab.retrieval import SQLiteBackend

    db = tmp_path / "kb.db"
    with SQLiteBackend(str(db)) as store:
        store.add(
            [
                Document("Refunds on annual plans are prorated after the first month.", source="refunds.md"),
                Document("Passwords are reset from the login page.", source="passwords.md"),
                Document("Invoices are emailed on the first day of the month.", source="invoices.md"),
            ]
        )
    path = _user_set(
        tmp_path, [{"query": "annual plan refunds", "gold_sources": ["refunds.md"], "answers": ["prorated"]}]
    )
    result = run_evaluation(load_eval_set(path, store=str(db)), ["max_context_tokens=30,400"], RunOptions(top_k=2))
    by = {r.settings["max_context_tokens"]: r for r in result.rows}
    assert by[400].metrics.gold_retrieved and by[400].metrics.gold_rank == 1 and by[400].metrics.answer_in_block
    assert by[30].metrics.in_block <= by[400].metrics.in_block <= 2
    with pytest.raises(LoadError, match="does not exist"):
        load_eval_set(path, store=str(tmp_path / "missing.db"))


def test_load_eval_bytes_reads_plain_and_gzipped_uploads():
    from contextlab.evaluation import load_eval_bytes

    line = json.dumps({"query": "q", "documents": ["the answer is here"], "answers": ["answer"]}) + "\n"
    plain = load_eval_bytes(line.encode(), "up.jsonl")
    zipped = load_eval_bytes(gzip.compress(line.encode()), "up.jsonl.gz")
    assert plain.name == "up.jsonl" and [q.query for q in zipped.questions] == ["q"]
    with pytest.raises(LoadError, match="not UTF-8"):
        load_eval_bytes(b"\xff\xfe{", "bad.jsonl")


def test_load_eval_set_bad_json_names_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"query": "q", "answers": ["a"], "documents": ["a"]}\n{oops\n', encoding="utf-8")
    with pytest.raises(LoadError, match="line 2"):
        load_eval_set(str(path))


# -- metrics -------------------------------------------------------------------------------


def test_question_metrics_reads_gold_position_from_the_trace():
    docs = [Document(filler(i), score=1 - i / 100, source=f"doc-{i}") for i in range(6)]
    docs[1] = Document("Paris is the capital of France, by the river Seine.", score=0.99, source="doc-1")
    q = EvalQuestion("q1", "capital of france", answers=("Paris",), gold_sources=frozenset({"doc-1"}))
    prep = prepare_question(q, docs)
    manager = ContextManager(placement="lost_in_the_middle")
    result = manager.build(PromptRequest(q.query, docs, max_context_tokens=4000))
    row = question_metrics(prep, result, "GPT-3.5-Turbo")
    # Rank 2 of 6 goes last under lost-in-the-middle.
    assert row.gold_rank == 2 and row.gold_position == 6 and row.in_block == 6
    assert row.gold_in_block and row.answer_in_block and row.gold_retrieved
    # Six documents lie between the gold-only point (88.3) and the 10-document curve, whose last
    # position reads 62.4: 88.3 + (62.4 - 88.3) * 5 / 9 = 73.911.
    assert row.expected_accuracy == pytest.approx(73.911, abs=1e-3)
    assert row.curve == "between gold only and 10 documents"
    assert row.gold_recall == 1.0 and row.gold_via_copy is False and row.gold_note is None
    assert [f.name for f in fields(row)] == list(METRIC_COLUMNS)


def test_question_metrics_gold_out_of_block_gets_closed_book():
    docs = [Document(filler(i), score=1 - i / 100, source=f"doc-{i}") for i in range(6)]
    q = EvalQuestion("q1", "q", answers=("zebra",), gold_sources=frozenset({"doc-5"}))
    prep = prepare_question(q, docs)
    result = ContextManager().build(PromptRequest(q.query, docs, max_context_tokens=60))
    row = question_metrics(prep, result, "GPT-3.5-Turbo")
    assert row.gold_retrieved and not row.gold_in_block and row.gold_position is None
    assert row.answer_in_block is False
    assert row.expected_accuracy == load_position_curves().closed_book("GPT-3.5-Turbo")
    assert row.curve == "closed book" and row.gold_recall == 0.0
    # Wilson bounds of 56.1% of 2,655 questions: [54.205, 57.978]
    assert (row.curve_low, row.curve_high) == (54.205, 57.978)


@pytest.mark.parametrize(
    "position, n, zone", [(None, 5, "not in block"), (1, 5, "first"), (5, 5, "last"), (3, 5, "middle"), (1, 1, "first")]
)
def test_gold_zone_names_the_part_of_the_block(position, n, zone):
    assert gold_zone(position, n) == zone


def test_bootstrap_interval_is_seeded_and_brackets_the_mean():
    values = [1.0] * 70 + [0.0] * 30
    first = bootstrap_interval(values, seed=3)
    assert first == bootstrap_interval(values, seed=3)
    mean, low, high = first
    assert mean == pytest.approx(0.7) and low < 0.7 < high and high - low < 0.25


# -- a whole run on a user set -------------------------------------------------------------


def _small_run(tmp_path):
    records = []
    for k in range(6):
        docs = _docs(8)
        docs[k]["content"] = f"The code word for question {k} is pelican{k}, as everyone knows."
        records.append(
            {
                "id": f"q{k}",
                "query": f"code word {k}",
                "documents": docs,
                "gold_sources": [f"doc-{k}"],
                "answers": [f"pelican{k}"],
            }
        )
    evalset = load_eval_set(_user_set(tmp_path, records))
    return run_evaluation(evalset, ["max_context_tokens=40,400", "placement=relevance,reversed"])


def test_run_evaluation_rows_cover_every_question_and_config(tmp_path):
    result = _small_run(tmp_path)
    assert len(result.rows) == 6 * 4
    assert result.columns == ["config", "query_id", "query", "max_context_tokens", "placement", *METRIC_COLUMNS]
    by = {(r.query_id, r.config): r for r in result.rows}
    # Relevance order puts rank k at position k + 1; reversed puts it at the other end.
    big = by[("q2", "max_context_tokens=400 placement=relevance")]
    assert big.metrics.gold_position == 3 and big.metrics.in_block == 8
    assert by[("q2", "max_context_tokens=400 placement=reversed")].metrics.gold_position == 6
    for k in range(6):
        small, large = (
            by[(f"q{k}", "max_context_tokens=40 placement=relevance")],
            by[(f"q{k}", "max_context_tokens=400 placement=relevance")],
        )
        assert small.metrics.tokens_used <= 40 and large.metrics.gold_in_block >= small.metrics.gold_in_block


def test_write_results_writes_csv_and_summary(tmp_path):
    result = _small_run(tmp_path)
    out, summary = tmp_path / "r.csv", tmp_path / "s.json"
    write_results(result, out, summary)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 24 and rows[0]["gold_in_block"] in ("0", "1")
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert "Lost in the Middle" in data["citation"] and len(data["configs"]) == 4
    assert "configurations" not in data  # one name: configs, the list (its length is the count)
    best = next(c for c in data["configs"] if c["config"] == "max_context_tokens=400 placement=relevance")
    # Six of six: the Wilson interval [0.609657, 1.0], not [1.0, 1.0].
    assert rows[0]["query"] == "code word 0"
    assert best["gold_in_block"] == 1.0 and best["gold_in_block_low"] == pytest.approx(0.609657, abs=1e-6)


def test_evaluate_to_files_streams_the_same_files_as_write_results(tmp_path):
    from contextlab.evaluation import evaluate_to_files

    result = _small_run(tmp_path)
    write_results(result, tmp_path / "kept.csv", tmp_path / "kept.json")
    streamed = evaluate_to_files(
        str(tmp_path / "set.jsonl"),
        tmp_path / "streamed.csv",
        tmp_path / "streamed.json",
        grid=["max_context_tokens=40,400", "placement=relevance,reversed"],
    )
    assert streamed.rows == [] and streamed.n_rows == 24 and streamed.n_questions == 6
    assert (tmp_path / "streamed.csv").read_bytes() == (tmp_path / "kept.csv").read_bytes()
    kept, got = (json.loads((tmp_path / f"{n}.json").read_text(encoding="utf-8")) for n in ("kept", "streamed"))
    assert kept["evalset"] == "set.jsonl"
    assert got["results_csv"]["path"] == "streamed.csv" and kept["results_csv"]["path"] == "kept.csv"
    assert got["results_csv"]["sha256"] == kept["results_csv"]["sha256"]
    assert len(got["evalset_sha256"]) == 64
    made = ("created", "results_csv", "evalset_sha256")
    assert {k: v for k, v in got.items() if k not in made} == {k: v for k, v in kept.items() if k not in made}


def test_aggregator_switches_to_the_normal_interval_for_large_sets():
    from contextlab.evaluation.aggregate import Aggregator

    rows = [eval_row({"config": "c", "query_id": f"q{k}", "tokens_used": k % 4}) for k in range(400)]
    boot = Aggregator([]).add(rows).summaries()[0]
    normal = Aggregator([], max_bootstrap=100).add(rows).summaries()[0]
    assert boot["tokens_used"] == normal["tokens_used"] == 1.5
    assert normal["tokens_used_low"] == pytest.approx(boot["tokens_used_low"], abs=0.02)
    assert normal["tokens_used_high"] == pytest.approx(boot["tokens_used_high"], abs=0.02)
    assert normal["tokens_used_n"] == 400 and normal["answer_in_block"] is None


def test_write_results_gives_an_ordinary_file_mode(tmp_path):
    import os

    result = _small_run(tmp_path)
    out = tmp_path / "r.csv"
    write_results(result, out)
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


def test_write_results_leaves_nothing_half_written(tmp_path):
    result = _small_run(tmp_path)
    out = tmp_path / "r.csv"
    out.write_text("earlier results\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="does not exist"):
        write_results(result, out, tmp_path / "missing" / "s.json")
    assert out.read_text(encoding="utf-8") == "earlier results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "set.jsonl"]


@pytest.mark.parametrize(("where", "field"), [("folder", "out"), ("summary_folder", "summary")])
def test_write_results_errors_name_the_field_not_a_flag(tmp_path, where, field):
    result = _small_run(tmp_path)
    out, summary = (tmp_path, None) if where == "folder" else (tmp_path / "r.csv", tmp_path / "no" / "s.json")
    with pytest.raises(InvalidInputError, match=f"^{field} '") as caught:
        write_results(result, out, summary)
    assert caught.value.field == field and "--" not in str(caught.value)


def test_run_evaluation_rejects_unknown_model_and_both_backends(tmp_path):
    evalset = parse_eval_records([{"query": "q", "documents": ["some words here"], "answers": ["x"]}])
    with pytest.raises(InvalidInputError, match="unknown model"):
        run_evaluation(evalset, None, RunOptions(curve_model="gpt-9"))
    with pytest.raises(InvalidInputError, match="not both"):
        RunOptions(workers=2, scheduler="tcp://127.0.0.1:1")


@pytest.mark.slow
def test_import_contextlab_does_not_import_dask():
    code = (
        "import sys, contextlab, contextlab.evaluation; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
