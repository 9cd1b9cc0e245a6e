"""PDF, DOCX and HTML files: their text with pages, and one line for each file that cannot be read."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from contextlab.errors import LoadError
from contextlab.loaders import load_bytes, load_file
from tests.files_maker import make_docx, make_pdf

ROOT = Path(__file__).resolve().parents[1]

PAGE = (
    "<html><head><title>Refunds</title><script>track('x')</script><style>p {color: red}</style></head>"
    "<body><nav><a href='/'>Home</a> | <a href='/shop'>Shop</a></nav><header>Example Shop</header>"
    "<main><h1>Refund policy</h1><p>Refunds take five working days to reach your card.</p>"
    "<p>Items must be returned within thirty days.</p></main>"
    "<footer>Copyright Example Ltd</footer><!-- a comment --></body></html>"
)


def test_loaders_pdf_gives_one_document_per_page_with_its_number():
    data = make_pdf(["Refunds take five working days.\nThey go back to your card.", "Shipping is free over 50 euros."])
    docs = load_bytes(data, "policy.pdf")
    assert [(d.content, d.source) for d in docs] == [
        ("Refunds take five working days.\nThey go back to your card.", "policy.pdf p. 1"),
        ("Shipping is free over 50 euros.", "policy.pdf p. 2"),
    ]
    assert [(d.metadata["start"], d.metadata["end"], d.metadata["page"]) for d in docs] == [(0, 58, 1), (60, 91, 2)]


def test_loaders_pdf_page_without_text_is_skipped_and_numbers_stay_true():
    docs = load_bytes(make_pdf(["First page text here.", "", "Third page text here."]), "mixed.pdf")
    assert [d.source for d in docs] == ["mixed.pdf p. 1", "mixed.pdf p. 3"]


def test_loaders_docx_reads_paragraphs_and_tables_in_order():
    data = make_docx(["Refund policy", "Refunds take five working days."], [["Item", "Days"], ["Shoes", "30"]])
    [doc] = load_bytes(data, "policy.docx")
    assert doc.content == "Refund policy\n\nRefunds take five working days.\n\nItem | Days\n\nShoes | 30"
    assert doc.source == "policy.docx"


def test_loaders_html_keeps_the_main_text_only():
    [doc] = load_bytes(PAGE.encode(), "refunds.html")
    assert doc.content == (
        "Refund policy\n\nRefunds take five working days to reach your card.\n\n"
        "Items must be returned within thirty days."
    )


def test_loaders_files_read_from_disk_by_extension(tmp_path):
    (tmp_path / "a.pdf").write_bytes(make_pdf(["Page one words."]))
    (tmp_path / "b.htm").write_text(PAGE)
    assert load_file(tmp_path / "a.pdf")[0].source == "a.pdf p. 1"
    assert load_file(tmp_path / "b.htm")[0].content.startswith("Refund policy")


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        (
            "locked.pdf",
            make_pdf(["Secret words."], encrypt_with="pw"),
            r"^locked\.pdf: the PDF is encrypted with a password; save a copy without one",
        ),
        (
            "broken.pdf",
            b"%PDF-1.4\n1 0 obj << /Type /Catalog",
            r"^broken\.pdf: not a readable PDF .*save or print it as a new PDF",
        ),
        ("scan.pdf", make_pdf(["", ""]), r"^scan\.pdf: no text layer \(a scanned PDF\?\); run OCR on it first"),
        ("notzip.docx", b"plain text, not a docx", r"^notzip\.docx: not a DOCX file \(not a ZIP archive\)"),
        ("empty.html", b"<html><script>x()</script></html>", r"^empty\.html: the page holds no text"),
    ],
)
def test_loaders_bad_files_are_one_line_naming_the_file_and_the_fix(name, data, message):
    with pytest.raises(LoadError, match=message) as raised:
        load_bytes(data, name)
    assert "\n" not in str(raised.value)


def test_loaders_pdf_over_the_page_limit_is_refused_quickly():
    data = make_pdf(["p"] * 2000)
    started = time.perf_counter()
    with pytest.raises(LoadError, match=r"^long\.pdf: 2,000 pages, over the 1,000-page limit; split the PDF"):
        load_bytes(data, "long.pdf")
    assert time.perf_counter() - started < 10


def test_loaders_docx_zip_bomb_is_refused_before_inflating():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"\0" * 200_000_000)
    data = out.getvalue()
    assert len(data) < 1_000_000
    with pytest.raises(LoadError, match=r"^bomb\.docx: decompresses to more than 20,000,000 bytes"):
        load_bytes(data, "bomb.docx")
    with pytest.raises(LoadError, match=r"^bomb\.docx: unpacks to 200,000,\d+ bytes from [\d,]+ \(a ZIP bomb\?\)"):
        load_bytes(data, "bomb.docx", max_bytes=500_000_000)


@pytest.mark.slow
def test_loaders_html_of_50_megabytes_is_refused_by_the_byte_limit_and_read_in_bounded_time_under_a_raised_one():
    page = "<html><body><nav>menu</nav>" + "<p>Paragraph about refunds and shipping in some detail.</p>" * 900_000
    data = page.encode()
    assert len(data) > 50_000_000
    with pytest.raises(LoadError, match=r"^big\.html is [\d,]+ bytes, over the 20,000,000-byte limit"):
        load_bytes(data, "big.html")
    started = time.perf_counter()
    [doc] = load_bytes(data, "big.html", max_bytes=60_000_000)
    assert time.perf_counter() - started < 30
    assert doc.content.startswith("Paragraph about refunds") and "menu" not in doc.content[:100]


def test_loaders_bad_file_beside_good_ones_keeps_the_good(tmp_path):
    from contextlab.loaders import read_files

    (tmp_path / "good.pdf").write_bytes(make_pdf(["Good words on a page."]))
    (tmp_path / "scan.pdf").write_bytes(make_pdf([""]))
    errors: list[str] = []
    docs = read_files([tmp_path], errors=errors)
    assert [d.source for d in docs] == ["good.pdf p. 1"]
    assert [e.split(":")[0] for e in errors] == ["scan.pdf"]


def test_loaders_import_contextlab_loads_no_file_reader():
    code = (
        "import sys, contextlab\n"
        "names = ('pypdf', 'docx', 'trafilatura', 'lxml', 'semantic_text_splitter', 'bs4')\n"
        "loaded = [m for m in names if m in sys.modules]\n"
        "print(loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_loaders_without_the_files_extra_a_pdf_names_the_install():
    code = (
        "import sys\n"
        "sys.modules['pypdf'] = None\n"
        "from contextlab.loaders import load_bytes\n"
        "try:\n"
        "    load_bytes(b'%PDF-1.4 x', 'report.pdf')\n"
        "except ValueError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert (
        done.stdout.strip()
        == "report.pdf: reading a PDF needs the files extra; install it with pip install 'contextlab[files]'"
    )


def test_loaders_read_files_chunks_a_folder_of_mixed_files(tmp_path):
    from contextlab.loaders import read_files

    (tmp_path / "policy.pdf").write_bytes(
        make_pdf(["Refunds take five working days.", "Shipping is free over 50 euros."])
    )
    (tmp_path / "notes.md").write_text("# Notes\n\nReturns are accepted for thirty days.\n")
    docs = read_files([tmp_path], chunk_size=64, chunk_overlap=0)
    assert [(d.source, d.content) for d in docs] == [
        ("notes.md", "# Notes\n\nReturns are accepted for thirty days."),
        ("policy.pdf pp. 1-2", "Refunds take five working days.\n\nShipping is free over 50 euros."),
    ]
    assert [(d.metadata["chunk_of"], d.metadata["start"], d.metadata["end"]) for d in docs] == [
        ("notes.md", 0, 46),
        ("policy.pdf", 0, 64),
    ]


def test_loaders_folder_gives_its_readable_files_sorted_hidden_ones_skipped(tmp_path):
    from contextlab.loaders import files_under

    (tmp_path / "b").mkdir()
    (tmp_path / ".git").mkdir()
    for name in ("b/two.md", "one.txt", "image.png", ".git/config.txt", ".hidden.md", "b/three.HTML"):
        (tmp_path / name).write_text("words")
    assert [p.relative_to(tmp_path).as_posix() for p in files_under([tmp_path])] == [
        "b/three.HTML",
        "b/two.md",
        "one.txt",
    ]
