"""How long the lab takes to redraw after a parameter change, on 1,000 uploaded documents.

Drives the real app (``app.py``) with Streamlit's AppTest, in process: uploads a 1,000-document
JSONL file, then times reruns. The reference is the same rerun with every cache emptied
(Streamlit's data cache and the tokenizer's memo), i.e. what a lab without caching would pay on
every slider move. Run: ``python benchmarks/bench_lab.py [--docs 1000] [--repeat 5]``.

``--browser`` measures what a person waits for instead: the real server (``streamlit run``)
driven by Chromium on the default sample, from a key press on the budget slider, the release
of a drag along it, or a click on a view, until that run's ``script_finished`` message has
arrived and every chart is drawn (``tests/e2e/lab_server.settle_ms``), and a fresh page from its
request until it has settled; the bar is 300 ms for a slider step, 700 ms for the first visit of a
view and 3 s for a fresh page (at a load average of 2 or less). It needs playwright (in
requirements-dev.txt) and Debian's Chromium, and says so in one line when either is missing.
Every number is the median
of ``--repeat`` runs (first visits: that many fresh sessions), printed with the machine's load
average. ``--pause S`` waits S seconds after the page has loaded before the first click, as a
reader would: without it, the first view visited also pays for the browser's own work left over
from loading the page (about 100–250 ms on 2 cores).
Sections a view draws only on request (``contextlab.ui.parts.on_request``) are not opened.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPICS = ["refund", "invoice", "billing", "export", "password", "seat", "currency", "tax", "trial", "api"]
VERBS = ["explains", "covers", "describes", "lists", "answers", "clarifies"]
FILLER = [
    "the",
    "plan",
    "customer",
    "account",
    "workspace",
    "settings",
    "page",
    "month",
    "year",
    "team",
    "admin",
    "owner",
    "report",
    "client",
    "payment",
    "card",
    "bank",
    "transfer",
    "receipt",
    "total",
    "due",
    "date",
    "policy",
]


def make_documents(n: int, seed: int = 7) -> list[dict]:
    """Return ``n`` retrieved-looking documents (~120 words), one in ten a near copy."""
    rng = random.Random(seed)
    docs: list[dict] = []
    for i in range(n):
        if i % 10 == 9 and docs:
            base = rng.choice(docs)
            words = base["content"].split()
            words[rng.randrange(len(words))] = "edited"
            docs.append(
                {"content": " ".join(words), "score": round(base["score"] * 0.9, 4), "source": f"mirror/{i}.md"}
            )
            continue
        topic = rng.choice(TOPICS)
        words = [f"This article {rng.choice(VERBS)} {topic} number {i}."]
        words += [rng.choice(FILLER) for _ in range(115)]
        docs.append({"content": " ".join(words), "score": round(rng.random(), 4), "source": f"kb/{topic}/{i}.md"})
    return docs


def _clear_caches() -> None:
    import streamlit as st

    from contextlab.tokenizers import get_tokenizer

    st.cache_data.clear()
    for name in ("cl100k_base", "heuristic"):
        memo = getattr(get_tokenizer(name), "_cache", None)
        if memo is not None:
            memo.clear()


def _timed_run(at, timeout: float = 120) -> float:
    start = time.perf_counter()
    at.run(timeout=timeout)
    elapsed = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    return elapsed


def bench(n_docs: int, repeat: int, views: list[str]) -> dict:
    """Return timings (seconds) of reruns of the lab on ``n_docs`` documents."""
    from streamlit.testing.v1 import AppTest

    payload = "\n".join(json.dumps(d) for d in make_documents(n_docs)).encode()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.radio(key="doc_source").set_value("upload")
    at.run()
    at.file_uploader(key="upload_files").set_value(("docs.jsonl", payload, "application/json"))
    first = _timed_run(at)
    assert any(m.value == str(n_docs) for m in at.metric), "the documents were loaded"

    results: dict = {"docs": n_docs, "first_load_s": first, "views": {}}
    budgets = [1024, 2048, 1536, 3000, 1200, 2500, 900, 4000]
    for view in views:
        at.segmented_control(key="view").set_value(view)
        _timed_run(at)
        changed, cached, uncached = [], [], []
        for k in range(repeat):
            # A new budget: the build reruns, the parsed upload comes from the cache.
            at.number_input(key="budget_exact").set_value(budgets[k % len(budgets)] + k)
            changed.append(_timed_run(at))
            # Nothing changed: the whole build comes from the cache.
            cached.append(_timed_run(at))
            # The reference: every cache emptied, so parsing, counting and building run again.
            _clear_caches()
            uncached.append(_timed_run(at))
        results["views"][view] = {
            "slider_change_s": statistics.median(changed),
            "no_change_s": statistics.median(cached),
            "uncached_s": statistics.median(uncached),
        }
    return results


def browser_missing() -> str | None:
    """Return the one line saying what ``--browser`` needs and how to install it, or None when all is there."""
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        return (
            "bench_lab.py --browser needs playwright: .venv/bin/python -m pip install 'playwright>=1.45' "
            "(or bash scripts/setup.sh --dev), and Chromium at /usr/bin/chromium (bash scripts/install_browser.sh)"
        )
    if not Path("/usr/bin/chromium").exists():
        return "bench_lab.py --browser needs Chromium at /usr/bin/chromium: bash scripts/install_browser.sh"
    return None


def bench_browser(repeat: int, pause: float = 0.0) -> dict:
    """Return settle times (ms) in Chromium: budget slider key steps and drags, first view visits."""
    import sys

    sys.path.insert(0, str(ROOT))
    from tests.e2e.lab_server import VIEWS, lab_page, settle_ms, wait_for_app, watch_runs

    out: dict = {
        "key_step_ms": [],
        "drag_ms": [],
        "fresh_page_ms": [],
        "first_visit_ms": {v: [] for v in VIEWS},
        "missed_drags": 0,
        "load_before": os.getloadavg(),
    }
    with lab_page() as page:
        watch_runs(page)
        for _ in range(repeat):  # each round a fresh session: every view's visit is a first visit
            started = time.perf_counter()
            page.goto(page.base_url)
            wait_for_app(page)
            out["fresh_page_ms"].append((time.perf_counter() - started) * 1000)
            page.wait_for_timeout(pause * 1000)
            for view in VIEWS[1:]:  # the overview is open; each other view, visited once
                button = page.get_by_role("radio", name={"final": "Final block"}.get(view, view.capitalize()))
                out["first_visit_ms"][view].append(settle_ms(page, button.click))
            out["first_visit_ms"]["overview"].append(settle_ms(page, page.get_by_role("radio", name="Overview").click))
        slider = page.get_by_role("slider", name="Token budget")
        for k in range(repeat):
            slider.focus()
            before = slider.bounding_box()["x"]
            out["key_step_ms"].append(
                settle_ms(page, partial(slider.press, "ArrowRight" if k % 2 == 0 else "ArrowLeft"))
            )
            box = slider.bounding_box()
            shown = slider.get_attribute("aria-valuetext")
            # The slider role sits on the thumb: grab it and drag three of the steps the key moved it.
            step_px = abs(box["x"] - before)
            x0 = box["x"] + box["height"] / 2
            x1 = x0 + (3 if k % 2 == 0 else -3) * step_px
            y = box["y"] + box["height"] / 2

            # A drag sends nothing until the button is released: the clock starts there.
            page.mouse.move(x0, y)
            page.mouse.down()
            page.mouse.move((x0 + x1) / 2, y, steps=5)
            page.mouse.move(x1, y, steps=5)
            if slider.get_attribute("aria-valuetext") == shown:
                page.mouse.up()  # the thumb was missed: nothing to send, nothing to time
                out["missed_drags"] += 1
                continue
            out["drag_ms"].append(settle_ms(page, page.mouse.up))
    out["load_after"] = os.getloadavg()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--views",
        nargs="*",
        default=["overview", "duplicates", "placement", "budget", "final", "compare", "learn", "window"],
    )
    parser.add_argument("--json", action="store_true", help="print the raw numbers as JSON")
    parser.add_argument(
        "--browser", action="store_true", help="measure settle times in Chromium on the default sample instead"
    )
    parser.add_argument(
        "--pause",
        type=float,
        default=0.0,
        help="with --browser: seconds to wait after the page loads before the first click",
    )
    args = parser.parse_args()
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    if args.browser:
        missing = browser_missing()
        if missing:
            raise SystemExit(missing)
        found = bench_browser(args.repeat, args.pause)
        if args.json:
            print(json.dumps(found, indent=2))
            return
        print(
            "lab in Chromium on the default sample (streamlit run; ms from input to the run's end, drawn; "
            f"first click {args.pause:g} s after load)"
        )
        for name in ("fresh_page_ms", "key_step_ms", "drag_ms"):
            values = found[name]
            print(f"{name:<14} median {statistics.median(values):6.0f}   max {max(values):6.0f}   (n={len(values)})")
        for view, values in found["first_visit_ms"].items():
            print(
                f"first visit of {view:<11} median {statistics.median(values):6.0f}   max {max(values):6.0f}   "
                f"(n={len(values)})"
            )
        print(
            "load average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}; after: {:.2f} {:.2f} {:.2f} on {} cores".format(
                *found["load_before"], *found["load_after"], os.cpu_count()
            )
        )
        return
    results = bench(args.docs, args.repeat, args.views)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"lab rerun on {results['docs']} uploaded documents (median of {args.repeat}; AppTest, in process)")
    print(f"first load (parse + build + draw): {results['first_load_s'] * 1000:7.0f} ms")
    print(f"{'view':<12}{'slider change':>15}{'no change':>12}{'uncached':>12}{'speed-up':>10}")
    for view, r in results["views"].items():
        speedup = r["uncached_s"] / max(r["slider_change_s"], 1e-9)
        print(
            f"{view:<12}{r['slider_change_s'] * 1000:>12.0f} ms{r['no_change_s'] * 1000:>9.0f} ms"
            f"{r['uncached_s'] * 1000:>9.0f} ms{speedup:>9.1f}x"
        )


if __name__ == "__main__":
    main()
