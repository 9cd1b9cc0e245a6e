"""Reading and chunking files: a 300-page PDF and 1,000 web pages, in MB per second.

    python benchmarks/bench_files.py                 # 300 pages, 1,000 pages, chunks of 512 tokens
    python benchmarks/bench_files.py --pages 100 --web-pages 200 --repeat 1

The benchmark makes its inputs itself, in a temporary folder (never in the project): a PDF of
``--pages`` pages of real-looking text (written by ``tests.files_maker.make_pdf``) and
``--web-pages`` HTML pages, each with a menu, a header, a footer, scripts and a main article.
Rows (best of ``--repeat``, input megabytes over wall seconds):

- ``pypdf extract_text`` (the reference): ``PdfReader`` and every page's ``extract_text()``;
- ``read PDF``: ``contextlab.loaders.load_file`` on the PDF (one document per page);
- ``read + chunk PDF``: ``read_files`` with ``--size`` and an eighth of it as overlap;
- ``read web pages`` and ``read + chunk web pages``: the same over the folder of pages.

The load average is printed with the table: on a shared machine the figures move with it.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contextlab.loaders import load_file, read_files  # noqa: E402
from tests.files_maker import make_pdf  # noqa: E402

WORDS = [
    *("refund", "plan", "billing", "account", "invoice", "customer", "support", "shipping", "parcel"),
    *("warehouse", "return", "policy", "card", "payment", "subscription", "annual", "monthly", "team"),
    *("workspace", "export", "data", "settings", "owner", "cancel", "renewal", "access"),
]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
    return " ".join(words).capitalize() + "."


def _pdf_pages(count: int, rng: random.Random) -> list[str]:
    """Return ``count`` pages of about 45 lines of text each (a dense report page)."""
    pages = []
    for _ in range(count):
        lines = []
        for _ in range(45):
            line = _sentence(rng)
            lines.append(line[:95])
        pages.append("\n".join(lines))
    return pages


def _web_page(number: int, rng: random.Random) -> str:
    paragraphs = "".join(f"<p>{' '.join(_sentence(rng) for _ in range(4))}</p>" for _ in range(12))
    return (
        f"<html><head><title>Page {number}</title><script>var t = {number};</script>"
        "<style>body{font:14px sans-serif}</style></head><body>"
        "<nav><a href='/'>Home</a> <a href='/docs'>Docs</a> <a href='/pricing'>Pricing</a></nav>"
        f"<header>Example help centre</header><main><h1>Article {number}</h1>{paragraphs}</main>"
        "<aside>Related: billing, refunds</aside><footer>Copyright Example Ltd</footer></body></html>"
    )


def _best(action: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def _pypdf_reference(data: bytes) -> None:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    for page in reader.pages:
        page.extract_text()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=300, help="pages of the PDF (default 300)")
    parser.add_argument("--web-pages", type=int, default=1000, help="HTML pages (default 1,000)")
    parser.add_argument("--size", type=int, default=512, help="chunk size in tokens (default 512)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each row; the best counts (default 3)")
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        pdf = Path(folder) / "report.pdf"
        pdf.write_bytes(make_pdf(_pdf_pages(args.pages, rng)))
        web = Path(folder) / "pages"
        web.mkdir()
        for number in range(args.web_pages):
            (web / f"page{number:04d}.html").write_text(_web_page(number, rng), encoding="utf-8")
        pdf_mb = pdf.stat().st_size / 1e6
        web_mb = sum(p.stat().st_size for p in web.iterdir()) / 1e6
        data = pdf.read_bytes()
        _pypdf_reference(make_pdf(["warm up"]))  # imports and first-call costs out of every row
        read_files([pdf], chunk_size=args.size)
        rows = [
            ("pypdf extract_text (reference)", pdf_mb, _best(lambda: _pypdf_reference(data), args.repeat)),
            ("read PDF", pdf_mb, _best(lambda: load_file(pdf), args.repeat)),
            ("read + chunk PDF", pdf_mb, _best(lambda: read_files([pdf], chunk_size=args.size), args.repeat)),
            ("read web pages", web_mb, _best(lambda: read_files([web]), args.repeat)),
            (
                "read + chunk web pages",
                web_mb,
                _best(lambda: read_files([web], chunk_size=args.size), args.repeat),
            ),
        ]
        chunks = len(read_files([pdf], chunk_size=args.size)), len(read_files([web], chunk_size=args.size))
    print(f"{args.pages} PDF pages ({pdf_mb:.2f} MB), {args.web_pages} web pages ({web_mb:.2f} MB)")
    print(f"chunks of {args.size} tokens: {chunks[0]:,} from the PDF, {chunks[1]:,} from the pages")
    print(f"{'row':34} {'MB':>7} {'seconds':>8} {'MB/s':>7}")
    for name, megabytes, seconds in rows:
        print(f"{name:34} {megabytes:7.2f} {seconds:8.2f} {megabytes / seconds:7.2f}")
    reference = rows[0][2]
    print(f"read PDF takes {rows[1][2] / reference:.2f}x pypdf's own extract_text on the same file")
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"load average: {load}; cpus: {os.cpu_count()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
