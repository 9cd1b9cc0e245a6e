"""Loaders: every format in, every malformed case a located, fixable error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextlab.errors import ContextLabError, InvalidInputError
from contextlab.loaders import (
    LoadError,
    documents_from_records,
    load_bytes,
    load_file,
    parse_pasted,
)
from contextlab.types import Document


def contents(docs: list[Document]) -> list[str]:
    return [d.content for d in docs]


# -- pasted text ---------------------------------------------------------------------------


def test_parse_pasted_splits_on_dash_lines():
    docs = parse_pasted("first doc\nline two\n---\nsecond doc\n  ----  \nthird")
    assert contents(docs) == ["first doc\nline two", "second doc", "third"]


def test_parse_pasted_splits_on_blank_lines_without_dash_lines():
    docs = parse_pasted("para one\nstill one\n\npara two\n   \n\npara three\n")
    assert contents(docs) == ["para one\nstill one", "para two", "para three"]


def test_parse_pasted_dash_lines_win_over_blank_lines():
    docs = parse_pasted("a\n\nb\n---\nc")
    assert contents(docs) == ["a\n\nb", "c"]


def test_parse_pasted_marks_scores_missing():
    docs = parse_pasted("one\n\ntwo")
    assert all(d.score == 1.0 and d.metadata == {"score_missing": True} for d in docs)
    assert all(d.source is None for d in docs)


@pytest.mark.parametrize("text", ["", "   \n\n  ", "\ufeff", "---\n---"])
def test_parse_pasted_empty_gives_no_documents(text):
    assert parse_pasted(text) == []


def test_parse_pasted_handles_crlf_and_bom():
    docs = parse_pasted("\ufeffone\r\nmore\r\n\r\ntwo\r\n")
    assert contents(docs) == ["one\nmore", "two"]


def test_parse_pasted_reads_json_array_whole():
    text = json.dumps([{"content": "alpha text", "score": 0.4, "source": "a.md"}, "beta text"])
    docs = parse_pasted(text)
    assert contents(docs) == ["alpha text", "beta text"]
    assert docs[0].score == 0.4 and docs[0].source == "a.md" and "score_missing" not in docs[0].metadata
    assert docs[1].metadata == {"score_missing": True}


def test_parse_pasted_reads_json_lines():
    docs = parse_pasted('{"text": "one", "score": 0.2}\n{"text": "two", "score": 0.9}')
    assert [(d.content, d.score) for d in docs] == [("one", 0.2), ("two", 0.9)]


def test_parse_pasted_text_starting_with_bracket_stays_text():
    docs = parse_pasted("[1] Introduction to the topic\n\n[2] Second part")
    assert contents(docs) == ["[1] Introduction to the topic", "[2] Second part"]


def test_parse_pasted_broken_json_array_is_located_error():
    with pytest.raises(LoadError, match=r"pasted text: line 2, column \d+: invalid JSON .*truncated"):
        parse_pasted('[{"content": "a"},\n {"content": "b"')


def test_parse_pasted_rejects_non_text():
    with pytest.raises(ValueError, match="expected text, got bytes"):
        parse_pasted(b"abc")  # type: ignore[arg-type]


def test_parse_pasted_max_documents_is_enforced():
    with pytest.raises(LoadError, match=r"more than 2 documents.*max_documents"):
        parse_pasted("a\n\nb\n\nc", max_documents=2)


def test_load_error_is_value_error_and_contextlab_error():
    assert issubclass(LoadError, InvalidInputError)
    assert issubclass(LoadError, ValueError) and issubclass(LoadError, ContextLabError)
    assert LoadError.__doc__


# -- JSON ----------------------------------------------------------------------------------


def test_load_bytes_json_array_maps_fields_and_keeps_the_rest():
    data = json.dumps(
        [
            {
                "content": "text one",
                "score": 0.75,
                "source": "wiki/a",
                "timestamp": 1700000000,
                "importance": 0.9,
                "id": "d1",
                "metadata": {"page": 3},
                "lang": "en",
            }
        ]
    ).encode()
    [doc] = load_bytes(data, "docs.json")
    assert doc == Document(
        content="text one",
        score=0.75,
        source="wiki/a",
        metadata={"page": 3, "id": "d1", "lang": "en"},
        timestamp=1700000000.0,
        importance=0.9,
    )


def test_load_bytes_json_documents_wrapper():
    data = json.dumps({"documents": [{"text": "a"}, {"text": "b"}], "query": "q"}).encode()
    assert contents(load_bytes(data, "x.json")) == ["a", "b"]


def test_load_bytes_single_json_object_is_one_document():
    assert contents(load_bytes(b'{"content": "only one"}', "x.json")) == ["only one"]


def test_load_bytes_langchain_documents():
    data = json.dumps(
        [
            {"page_content": "lc text", "metadata": {"source": "guide.pdf", "page": 1}, "type": "Document"},
        ]
    ).encode()
    [doc] = load_bytes(data, "lc.json")
    assert (doc.content, doc.source) == ("lc text", "guide.pdf")
    assert doc.metadata == {"page": 1, "type": "Document", "score_missing": True}


def test_load_bytes_langchain_scored_pairs():
    data = json.dumps([[{"page_content": "pair text", "metadata": {}}, 0.42]]).encode()
    [doc] = load_bytes(data, "pairs.json")
    assert (doc.content, doc.score) == ("pair text", 0.42)


def test_load_bytes_langchain_serialised_form():
    data = json.dumps(
        [
            {
                "lc": 1,
                "type": "constructor",
                "id": ["langchain", "Document"],
                "kwargs": {"page_content": "ser text", "metadata": {"source": "s"}},
            }
        ]
    ).encode()
    [doc] = load_bytes(data, "lc.json")
    assert (doc.content, doc.source) == ("ser text", "s")


def test_load_bytes_llamaindex_node_with_score():
    data = json.dumps(
        {
            "source_nodes": [
                {
                    "node": {
                        "id_": "n-1",
                        "text": "llama text",
                        "embedding": None,
                        "metadata": {"file_name": "report.pdf", "page_label": "4"},
                        "relationships": {},
                        "start_char_idx": 0,
                    },
                    "score": 0.81,
                }
            ]
        }
    ).encode()
    [doc] = load_bytes(data, "llama.json")
    assert (doc.content, doc.score, doc.source) == ("llama text", 0.81, "report.pdf")
    assert doc.metadata == {"page_label": "4", "node_id": "n-1"}


@pytest.mark.parametrize("field", ["content", "text", "page_content", "Content", "TEXT"])
def test_load_bytes_accepts_every_text_field_name(field):
    [doc] = load_bytes(json.dumps([{field: "hello"}]).encode(), "x.json")
    assert doc.content == "hello"


@pytest.mark.parametrize(
    "record,source",
    [
        ({"text": "t", "url": "https://x.org/a"}, "https://x.org/a"),
        ({"text": "t", "file_name": "a.txt"}, "a.txt"),
        ({"text": "t", "metadata": {"source": "meta-src"}}, "meta-src"),
        ({"text": "t", "source": 12}, "12"),
        ({"text": "t"}, None),
    ],
)
def test_load_bytes_source_fields(record, source):
    [doc] = load_bytes(json.dumps([record]).encode(), "x.json")
    assert doc.source == source


def test_load_bytes_second_text_field_is_kept_in_metadata():
    [doc] = load_bytes(b'[{"content": "main", "text": "other"}]', "x.json")
    assert doc.content == "main" and doc.metadata["text"] == "other"


def test_load_bytes_conflicting_metadata_keeps_both_values():
    [doc] = load_bytes(b'[{"content": "c", "page": 1, "metadata": {"page": 2}}]', "x.json")
    assert doc.metadata["page"] == 2 and doc.metadata["record.page"] == 1


def test_load_bytes_iso_timestamp():
    [doc] = load_bytes(b'[{"content": "c", "timestamp": "2024-01-01T00:00:00Z"}]', "x.json")
    assert doc.timestamp == 1704067200.0


def test_load_bytes_numeric_string_score():
    [doc] = load_bytes(b'[{"content": "c", "score": "0.25"}]', "x.json")
    assert doc.score == 0.25


@pytest.mark.parametrize(
    "data,match",
    [
        (b'[{"content": "a"}, {"content": "b"', r"bad\.json: line 1, column \d+: invalid JSON .*truncated"),
        (b'[{"content": "a"} {"content": "b"}]', r"line 1, column 19: invalid JSON \(Expecting ',' delimiter\); check"),
        (b'[{"content": 42}]', r"record 1: field 'content' must be text, got a number"),
        (b'[{"content": ["a"]}]', r"record 1: field 'content' must be text, got an array"),
        (b'[{"content": "a", "score": "high"}]', r"record 1: field 'score' must be a number, got 'high'"),
        (b'[{"content": "a", "score": true}]', r"field 'score' must be a number, got a boolean"),
        (b'[{"content": "a", "score": NaN}]', r"field 'score' must be a finite number"),
        (b'[{"content": "a", "importance": {}}]', r"field 'importance' must be a number, got an object"),
        (b'[{"content": "a", "timestamp": "yesterday"}]', r"'timestamp' must be epoch seconds or an ISO 8601"),
        (b'[{"content": "a", "source": ["x"]}]', r"field 'source' must be text, got an array"),
        (b'[{"content": "a"}, 7]', r"record 2: expected an object .* or a string, got a number"),
        (b"[null]", r"record 1: expected an object .* got null"),
        (b'{"documents": "nope"}', r"field 'documents' must be an array of documents, got text"),
        (b'{"foo": 1, "bar": 2}', r"expected an array of documents .*got an object with keys: foo, bar"),
        (b"42", r"expected an array of documents .*got a number"),
        (b"", r"bad\.json: the file is empty"),
        (b"  \n ", r"the file is empty"),
        (b"[]", r"no documents found"),
    ],
)
def test_load_bytes_json_malformed(data, match):
    with pytest.raises(ValueError, match=match):
        load_bytes(data, "bad.json")


def test_load_bytes_records_without_text_are_reported_not_dropped():
    data = json.dumps([{"content": "ok"}, {"title": "no text"}, {"content": "   "}, {"content": "fine"}]).encode()
    with pytest.raises(LoadError) as info:
        load_bytes(data, "mixed.json")
    message = str(info.value)
    assert "2 record(s) have no text" in message
    assert "record 2 (fields: title)" in message and "record 3 (empty 'content')" in message
    assert "record 1" not in message


def test_load_bytes_many_records_without_text_are_summarised():
    data = json.dumps([{"x": i} for i in range(8)]).encode()
    with pytest.raises(LoadError, match=r"8 record\(s\) have no text: .*and 3 more"):
        load_bytes(data, "x.json")


def test_documents_from_records_reads_dicts_and_strings():
    docs = documents_from_records([{"text": "a", "score": 0.5}, "b"])
    assert [(d.content, d.score) for d in docs] == [("a", 0.5), ("b", 1.0)]


def test_load_bytes_each_load_gives_fresh_metadata():
    record = {"content": "c", "metadata": {"k": "v"}}
    data = json.dumps([record]).encode()
    [doc] = load_bytes(data, "x.json")
    doc.metadata["k"] = "changed"
    [again] = load_bytes(data, "x.json")
    assert again.metadata["k"] == "v"


# -- JSON Lines ----------------------------------------------------------------------------


def test_load_bytes_jsonl_skips_blank_lines():
    data = b'{"text": "one"}\n\n{"text": "two", "score": 0.3}\r\n'
    docs = load_bytes(data, "x.jsonl")
    assert [(d.content, d.score) for d in docs] == [("one", 1.0), ("two", 0.3)]


@pytest.mark.parametrize(
    "data,match",
    [
        (b'{"text": "one"}\n{"text": "two"\n', r"bad\.jsonl: line 2, column \d+: invalid JSON .*truncated"),
        (b'{"text": "one"}\n\n{text: "two"}\n', r"bad\.jsonl: line 3, column 2: invalid JSON"),
        (b'{"text": "one"}\n[1, 2, 3]\n', r"line 2: expected an object"),
        (b'{"text": "one"}\n{"text": 5}\n', r"line 2: field 'text' must be text"),
        (b'{"text": "one"}\n{"body": "x"}\n', r"1 record\(s\) have no text: line 2 \(fields: body\)"),
        (b"\n\n", r"no documents found"),
    ],
)
def test_load_bytes_jsonl_malformed(data, match):
    with pytest.raises(ValueError, match=match):
        load_bytes(data, "bad.jsonl")


# -- CSV -----------------------------------------------------------------------------------


def test_load_bytes_csv_with_bom_crlf_and_quoted_commas():
    data = '\ufefftext,score,source,lang\r\n"hello, world",0.5,a.md,en\r\n"multi\r\nline",,b.md,\r\n'
    docs = load_bytes(data.encode("utf-8"), "x.csv")
    assert [(d.content, d.score, d.source) for d in docs] == [
        ("hello, world", 0.5, "a.md"),
        ("multi\nline", 1.0, "b.md"),
    ]
    assert docs[0].metadata == {"lang": "en"}
    assert docs[1].metadata == {"lang": "", "score_missing": True}


def test_load_bytes_csv_semicolon_delimiter():
    docs = load_bytes(b"content;score\nfirst, with comma;0.9\n", "x.csv")
    assert [(d.content, d.score) for d in docs] == [("first, with comma", 0.9)]


def test_load_bytes_tsv():
    docs = load_bytes(b"text\tscore\na b\t0.1\n", "x.tsv")
    assert [(d.content, d.score) for d in docs] == [("a b", 0.1)]


def test_load_bytes_csv_metadata_column_json_is_parsed():
    docs = load_bytes(b'text,metadata\nx,"{""page"": 2}"\n', "x.csv")
    assert docs[0].metadata == {"page": 2, "score_missing": True}


def test_load_bytes_csv_skips_blank_rows_and_pads_short_rows():
    docs = load_bytes(b"text,score,source\nfirst,0.5\n\n,,\nsecond,0.4,s\n", "x.csv")
    assert [(d.content, d.score, d.source) for d in docs] == [("first", 0.5, None), ("second", 0.4, "s")]


def test_load_bytes_csv_long_cells_are_read():
    long_text = "word " * 60_000
    data = ("text\n" + '"' + long_text + '"\n').encode()
    [doc] = load_bytes(data, "long.csv")
    assert doc.content == long_text


@pytest.mark.parametrize(
    "data,match",
    [
        (
            b"title,score\nx,1\n",
            r"bad\.csv: no text column; name one column content, text, page_content \(found columns: title, score\)",
        ),
        (b"text,score\na,1,extra\n", r"bad\.csv: line 2: 3 cells but the header has 2 columns"),
        (b'text,score\nok,1\n"unterminated,1\n', r"bad\.csv: line 3: malformed CSV"),
        (b"text,score\na,abc\n", r"line 2: field 'score' must be a number, got 'abc'"),
        (b"text,score\na,1\n,0.5\n", r"1 record\(s\) have no text: line 3"),
        (b"", r"bad\.csv: the file is empty"),
        (b"text,score\n", r"no documents found"),
    ],
)
def test_load_bytes_csv_malformed(data, match):
    with pytest.raises(ValueError, match=match):
        load_bytes(data, "bad.csv")


# -- TXT and Markdown ----------------------------------------------------------------------


def test_load_bytes_txt_paragraphs_get_numbered_sources():
    docs = load_bytes(b"one para\n\ntwo para\n", "notes.txt")
    assert [(d.content, d.source) for d in docs] == [("one para", "notes.txt#1"), ("two para", "notes.txt#2")]
    assert all(d.metadata["score_missing"] for d in docs)


def test_load_bytes_txt_single_document_source_is_file_name():
    [doc] = load_bytes(b"just one\nparagraph", "one.txt")
    assert doc.source == "one.txt"


def test_load_bytes_markdown_splits_at_headings_and_reads_front_matter():
    data = b"---\ntitle: Guide\nauthor: Ann\n---\nIntro text.\n\n# Install\nRun it.\n\nMore.\n## Use\nCall it.\n"
    docs = load_bytes(data, "guide.md")
    assert contents(docs) == ["Intro text.", "# Install\nRun it.\n\nMore.", "## Use\nCall it."]
    assert [d.metadata.get("heading") for d in docs] == [None, "Install", "Use"]
    assert all(d.metadata["title"] == "Guide" and d.metadata["author"] == "Ann" for d in docs)


def test_load_bytes_markdown_dash_separators_win():
    docs = load_bytes(b"# A\none\n---\n# B\ntwo\n", "x.md")
    assert contents(docs) == ["# A\none", "# B\ntwo"]


def test_load_bytes_markdown_without_headings_uses_paragraphs():
    assert contents(load_bytes(b"p one\n\np two", "x.markdown")) == ["p one", "p two"]


# -- bytes, encodings, limits --------------------------------------------------------------


def test_load_bytes_utf16_with_bom():
    docs = load_bytes('[{"content": "héllo"}]'.encode("utf-16"), "x.json")
    assert contents(docs) == ["héllo"]


def test_load_bytes_utf8_bom_json():
    assert contents(load_bytes(b'\xef\xbb\xbf[{"content": "x"}]', "x.json")) == ["x"]


@pytest.mark.parametrize(
    "data,match",
    [
        (b"caf\xe9 au lait", r"bad\.txt: line 1: byte 0xe9 at offset 3 is not UTF-8; re-save the file as UTF-8"),
        (b"ok\nline two \xff\n", r"line 2: byte 0xff"),
        (b"%PDF-1.7\n\x00\x01\x02binary", r"bad\.txt: looks like a binary file \(a PDF file\), not text"),
        (b"PK\x03\x04\x14\x00", r"bad\.txt: looks like a binary file \(a ZIP archive \(DOCX"),
        (b"\x7fELF\x02\x01\x00\x00", r"bad\.txt: line 1: NUL byte at offset 6; .*binary file"),
        (b"\xff\xfe\x00", r"starts with a UTF-16 mark but is not valid UTF-16"),
    ],
)
def test_load_bytes_undecodable_is_clear_error(data, match):
    with pytest.raises(LoadError, match=match):
        load_bytes(data, "bad.txt")


# One rule for NUL bytes, wherever they sit: before this, a NUL in the first 8 KB rejected a
# file and one after it passed into the documents.
_NUL_CASES = [
    ("x.txt", b"a" * 20_000 + b"\n\x00b\n", 2, 20_001),
    ("x.txt", b"ok\x00", 1, 2),
    ("x.md", b"# T\n" + b"word " * 4000 + b"\n\nx\x00y", 4, 20_007),
    ("x.json", b'[{"content": "' + b"a" * 10_000 + b'\x00"}]', 1, 10_014),
    ("x.jsonl", b'{"content": "a"}\n' * 1000 + b'{"content": "b\x00"}\n', 1001, 17_014),
    ("x.csv", b"content\n" + b"a\n" * 9000 + b"b\x00\n", 9002, 18_009),
]


@pytest.mark.parametrize("filename,data,line,offset", _NUL_CASES)
def test_load_bytes_refuses_a_nul_byte_anywhere_naming_line_and_offset(filename, data, line, offset):
    with pytest.raises(LoadError, match=rf"{filename}: line {line}: NUL byte at offset {offset};"):
        load_bytes(data, filename)


@pytest.mark.parametrize("filename,data,line,offset", _NUL_CASES)
def test_load_file_refuses_a_nul_byte_anywhere_like_load_bytes(tmp_path: Path, filename, data, line, offset):
    path = tmp_path / filename
    path.write_bytes(data)
    with pytest.raises(LoadError, match=rf"{filename}: line {line}: NUL byte at offset {offset};"):
        load_file(path)


@pytest.mark.parametrize(
    "call",
    [
        lambda: load_bytes(b'[{"content": "a\\u0000b"}]', "x.json"),
        lambda: load_bytes(b'{"text": "a", "source": "s\\u0000"}', "x.jsonl"),
        lambda: load_bytes('[{"content": "a\x00"}]'.encode("utf-16"), "x.json"),
        lambda: parse_pasted("first\n\nsec\x00ond"),
        lambda: parse_pasted('[{"content": "a\\u0000"}]'),
        lambda: documents_from_records(["fine", {"content": "no\x00"}]),
    ],
)
def test_nul_characters_in_decoded_text_are_refused_the_same_way(call):
    with pytest.raises(LoadError, match=r"NUL"):
        call()


@pytest.mark.parametrize(
    "filename,match",
    [
        ("sheet.xlsx", r"sheet\.xlsx: unsupported file type \('\.xlsx'\); use one of \.json"),
        ("README", r"unsupported file type \(no extension\)"),
    ],
)
def test_load_bytes_unsupported_extension(filename, match):
    with pytest.raises(LoadError, match=match):
        load_bytes(b"text", filename)


def test_load_bytes_format_override_reads_any_name():
    assert contents(load_bytes(b'[{"text": "x"}]', "stdin", format="json")) == ["x"]
    assert contents(load_bytes(b"a\n---\nb", "stdin", format="auto")) == ["a", "b"]


def test_load_bytes_auto_format_empty_input_is_an_error():
    with pytest.raises(LoadError, match="stdin: no documents found"):
        load_bytes(b" \n\n", "stdin", format="auto")


def test_load_bytes_unknown_format_override():
    with pytest.raises(LoadError, match="unknown input format 'xml'; choose one of"):
        load_bytes(b"x", "stdin", format="xml")


def test_load_bytes_max_bytes_is_enforced():
    with pytest.raises(LoadError, match=r"x\.txt is 11 bytes, over the 10-byte limit.*max_bytes"):
        load_bytes(b"hello world", "x.txt", max_bytes=10)


def test_load_bytes_max_documents_is_enforced_per_format():
    lines = b"\n".join(b'{"text": "t%d"}' % i for i in range(5))
    with pytest.raises(LoadError, match=r"more than 3 documents"):
        load_bytes(lines, "x.jsonl", max_documents=3)
    with pytest.raises(LoadError, match=r"more than 3 documents"):
        load_bytes(b"text\na\nb\nc\nd\n", "x.csv", max_documents=3)
    with pytest.raises(LoadError, match=r"more than 3 documents"):
        load_bytes(b'["a", "b", "c", "d"]', "x.json", max_documents=3)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"max_bytes": 0}, r"max_bytes must be a whole number >= 1, got 0"),
        ({"max_bytes": 1.5}, r"max_bytes must be a whole number >= 1, got 1\.5"),
        ({"max_documents": -1}, r"max_documents must be a whole number >= 1, got -1"),
    ],
)
def test_load_bytes_bad_limits(kwargs, match):
    with pytest.raises(ValueError, match=match):
        load_bytes(b"x", "x.txt", **kwargs)


# -- files ---------------------------------------------------------------------------------


def test_load_file_reads_each_format(tmp_path: Path):
    (tmp_path / "a.json").write_text('[{"content": "j"}]', encoding="utf-8")
    (tmp_path / "a.jsonl").write_text('{"content": "l"}\n', encoding="utf-8")
    (tmp_path / "a.csv").write_text("content\nc\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("t", encoding="utf-8")
    (tmp_path / "a.md").write_text("# m", encoding="utf-8")
    got = {p: contents(load_file(tmp_path / p)) for p in ("a.json", "a.jsonl", "a.csv", "a.txt", "a.md")}
    assert got == {"a.json": ["j"], "a.jsonl": ["l"], "a.csv": ["c"], "a.txt": ["t"], "a.md": ["# m"]}


def test_load_file_ten_megabytes_of_jsonl(tmp_path: Path):
    line = json.dumps({"text": "lorem ipsum dolor sit amet " * 40, "score": 0.5}) + "\n"
    count = 10_000_000 // len(line) + 1
    path = tmp_path / "big.jsonl"
    path.write_text(line * count, encoding="utf-8")
    assert path.stat().st_size > 10_000_000
    docs = load_file(path)
    assert len(docs) == count and docs[-1].score == 0.5


def test_load_file_over_the_limit_is_refused_before_reading(tmp_path: Path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 2000)
    with pytest.raises(LoadError, match=r"big\.txt is 2,000 bytes, over the 1,000-byte limit"):
        load_file(path, max_bytes=1000)


def test_read_limited_reads_past_the_expected_size_but_not_past_the_limit():
    import io

    from contextlab.loaders.reading import read_limited

    assert read_limited(io.BytesIO(b"x" * 30), "f.txt", 50, expected=10) == b"x" * 30  # grew: all read
    with pytest.raises(LoadError, match=r"f\.txt is 51 bytes, over the 50-byte limit"):
        read_limited(io.BytesIO(b"x" * 100), "f.txt", 50, expected=10)


def test_load_file_missing_file_is_oserror(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        load_file(tmp_path / "nope.json")


def test_load_file_unsupported_type_fails_before_reading(tmp_path: Path):
    with pytest.raises(LoadError, match="unsupported file type"):
        load_file(tmp_path / "missing.xlsx")


def test_load_bytes_csv_repeated_column_is_an_error():
    with pytest.raises(LoadError, match=r"line 1: column\(s\) text appear more than once"):
        load_bytes(b"text,text\na,b\n", "x.csv")


def test_load_bytes_huge_integer_score_is_an_error_that_says_too_large_without_every_digit():
    with pytest.raises(LoadError) as raised:
        load_bytes(b'[{"content": "a", "score": 1' + b"0" * 400 + b"}]", "x.json")
    assert str(raised.value) == (
        "x.json: record 1: field 'score' is a number too large to use (beyond ±1.8e308), got a 401-digit whole number"
    )


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("score", "9" * 400, "is a number too large to use (beyond ±1.8e308), got '9999"),
        ("score", "x" * 400, "must be a number, got 'xxxx"),
        ("importance", "nan" + " " * 300, "must be a finite number, got 'nan   "),
        ("timestamp", "t" * 400, "must be epoch seconds or an ISO 8601 date such as 2024-05-01T12:00:00Z, got 'ttt"),
    ],
)
def test_load_bytes_messages_quote_at_most_60_characters_of_a_value(field, value, says):
    with pytest.raises(LoadError) as raised:
        load_bytes(json.dumps([{"content": "a", field: value}]).encode(), "x.json")
    message = str(raised.value)
    assert says in message and len(message) < 250
    assert f"… ({len(repr(value))} characters)" in message


def test_load_bytes_long_column_and_key_lists_are_shortened():
    header = ",".join(f"column_name_{i}" for i in range(50))
    with pytest.raises(LoadError, match=r"no text column.*… \(\d+ characters\)\)$"):
        load_bytes(f"{header}\nx\n".encode(), "x.csv")
    with pytest.raises(LoadError) as raised:
        load_bytes(json.dumps({"k" * 500: 1}).encode(), "x.json")
    assert len(str(raised.value)) < 250


def test_load_bytes_json_metadata_that_is_not_an_object_is_an_error():
    with pytest.raises(
        LoadError,
        match=r"^x\.json: record 2: field 'metadata' must be an object of "
        r"metadata fields, got text 'notadict'$",
    ):
        load_bytes(json.dumps([{"content": "a"}, {"content": "b", "metadata": "notadict"}]).encode(), "x.json")
    with pytest.raises(LoadError, match=r"line 1: field 'metadata' must be an object .* got an array"):
        load_bytes(b'{"content": "b", "metadata": [1, 2]}\n', "x.jsonl")
    # null or empty is no metadata; a CSV cell can only be text, so the column is kept as it is.
    [doc] = load_bytes(b'[{"content": "b", "metadata": null}]', "x.json")
    assert doc.metadata == {"score_missing": True}
    [row] = load_bytes(b"content,metadata\nhello,abc\n", "x.csv")
    assert row.metadata["metadata"] == "abc"


def test_load_file_folder_says_it_is_a_folder(tmp_path: Path):
    with pytest.raises(
        LoadError,
        match=r"is a folder, not a documents file; folders are not read: "
        r"give the files in it instead",
    ):
        load_file(tmp_path)


# -- properties ----------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Random bytes, JSON values and CSV at every entry point: tests/test_loaders_fuzz.py.


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab -\n\r\t[{\ufeffé"), max_size=200) | st.text(max_size=200))
def test_parse_pasted_keeps_every_character_but_separators(text: str):
    from collections import Counter

    try:
        docs = parse_pasted(text)
    except LoadError:
        return
    normal = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if normal.strip()[:1] in ("[", "{"):
        return  # may have been read as JSON
    assert all(d.content and d.content in normal for d in docs)

    def significant(s: str) -> Counter:
        return Counter(c for c in s if not c.isspace() and c != "-")

    assert significant("".join(d.content for d in docs)) == significant(normal)


@settings(max_examples=60, deadline=None)
@given(
    records=st.lists(
        st.fixed_dictionaries(
            {
                # NUL is refused by rule (test_nul_characters_in_decoded_text_are_refused_the_same_way).
                "content": st.text(st.characters(blacklist_characters="\x00"), min_size=1, max_size=40).filter(
                    lambda s: s.strip()
                ),
                "score": st.floats(0, 1),
                "source": st.none()
                | st.text(st.characters(blacklist_characters="\x00"), min_size=1, max_size=10).filter(
                    lambda s: s.strip()
                ),
            }
        ),
        min_size=1,
        max_size=8,
    ),
    filename=st.sampled_from(["x.json", "x.jsonl"]),
)
def test_load_bytes_json_round_trip(records, filename):
    if filename.endswith(".jsonl"):
        data = "\n".join(json.dumps(r) for r in records).encode()
    else:
        data = json.dumps(records).encode()
    docs = load_bytes(data, filename)
    expected = [(r["content"].replace("\r\n", "\n").replace("\r", "\n"), r["score"], r["source"]) for r in records]
    assert [(d.content, d.score, d.source) for d in docs] == expected
