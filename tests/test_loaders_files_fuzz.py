"""Damaged PDF, DOCX and HTML files: a ``LoadError`` naming the file, or documents; never another error."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextlab.errors import LoadError
from contextlab.loaders import load_bytes
from tests.files_maker import make_docx, make_pdf

PDF = make_pdf(["Refunds take five working days.", "Shipping is free over fifty euros."])
DOCX = make_docx(["Refund policy", "Refunds take five working days."], [["Item", "Days"], ["Shoes", "30"]])


def _damaged(data: bytes, cuts: list[tuple[int, int]]) -> bytes:
    out = bytearray(data)
    for at, value in cuts:
        out[at % len(out)] = value
    return bytes(out)


def _read_or_refuse(data: bytes, name: str) -> None:
    try:
        docs = load_bytes(data, name)
    except LoadError as exc:
        assert str(exc).startswith(name) and "\n" not in str(exc)
    else:
        assert docs and all(d.content.strip() for d in docs)


@settings(max_examples=80, deadline=None)
@given(cuts=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=12))
def test_loaders_damaged_pdf_is_read_or_refused_in_one_line(cuts):
    _read_or_refuse(_damaged(PDF, cuts), "damaged.pdf")


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=12))
def test_loaders_damaged_docx_is_read_or_refused_in_one_line(cuts):
    _read_or_refuse(_damaged(DOCX, cuts), "damaged.docx")


@settings(max_examples=60, deadline=None)
@given(page=st.text(alphabet=st.sampled_from(list("<>/=\"' abcdpHTMLscriptnav&;#x0\n")), max_size=300))
def test_loaders_any_html_text_is_read_or_refused_in_one_line(page):
    _read_or_refuse(page.encode(), "page.html")


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=400))
def test_loaders_random_bytes_as_pdf_or_docx_are_refused_in_one_line(data):
    _read_or_refuse(b"%PDF-1.4\n" + data, "random.pdf")
    _read_or_refuse(b"PK\x03\x04" + data, "random.docx")
