"""A megabyte of templated records uploaded to the lab is built, drawn and explained in seconds.

Records that differ in one word are all near copies of the first; before dedup looked up
candidates among kept documents only, a 1 MB file of them took the whole machine's memory in the
lab as in the library. The bounds here are generous for a loaded machine: the linear pass takes
about 2 s and 200 MB (quadratic work took 59 s of CPU for 8,000 records and 23 GB for 20,000).
"""

from __future__ import annotations

import json
import resource
import time

import pytest

from tests.ui.conftest import metric, open_lab, run, switch_view, unescape

pytestmark = [pytest.mark.integration, pytest.mark.slow]

RECORDS = 20_000


def test_lab_megabyte_of_templated_records_keeps_one_and_answers_in_seconds():
    lines = "".join(
        json.dumps({"content": f"short doc {i} about refunds and billing item", "source": f"orders/{i}.txt"}) + "\n"
        for i in range(RECORDS)
    )
    assert len(lines) > 1_000_000
    at = open_lab()
    run(at.radio(key="doc_source").set_value("upload"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux
    started = time.perf_counter()
    run(at.file_uploader(key="upload_files").set_value([("records.jsonl", lines.encode(), "application/json")]))
    for view in ("duplicates", "final", "window"):
        switch_view(at, view)
    elapsed = time.perf_counter() - started
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert not at.error, [e.value for e in at.error]
    assert metric(at, "Documents in the window") == f"1 of {RECORDS:,}"  # one kept, the rest near copies
    assert f"Upload: records.jsonl · {RECORDS:,} documents" in unescape(at.caption[0].value)
    assert any(unescape(i.value).startswith(f"{RECORDS:,} documents have no score") for i in at.info)
    assert elapsed < 60, f"{elapsed:.1f} s for four runs of the lab"
    assert grown_mb < 2048, f"peak RSS grew {grown_mb:.0f} MB"
