"""Start the lab with `streamlit run` on a free port and drive it with Debian's Chromium.

Used by the browser tests, the lab benchmark and `python -m tests.e2e.lab_server --screenshots
DIR`, which saves one screenshot per view (the README's images come from there). The Evaluate
view is shot after a run of its grid (150 bundled questions); the captured-runs picture needs
the integrations and comes from `CONTEXTLAB_SCREENSHOTS=docs/screenshots pytest
tests/e2e/test_runs_browser.py`. Tests write their pictures to artifacts/ (ignored by git)
unless CONTEXTLAB_SCREENSHOTS names another folder, so a test run never changes tracked files.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from contextlab.models import free_port

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: The views that draw on the default sample as opened (what the benchmark visits).
VIEWS = ("overview", "duplicates", "placement", "budget", "final", "compare", "learn", "window")
#: What ``--screenshots`` saves by default: every view, Evaluate after a run of its grid.
SCREENSHOT_VIEWS = (*VIEWS, "evaluate")
#: Questions the Evaluate screenshot runs (8 configurations: the view's default grid).
EVALUATE_LIMIT = 150


def screenshot_dir() -> Path:
    """Return where tests save pictures: ``$CONTEXTLAB_SCREENSHOTS`` if set, else artifacts/ (untracked)."""
    return ROOT / os.environ.get("CONTEXTLAB_SCREENSHOTS", "artifacts")


#: Servers started here and not yet stopped, by process id (= their process group id).
_LIVE: dict[int, subprocess.Popen] = {}
_HANDLED: set[int] = set()


def live_server_pids() -> list[int]:
    """Return the process ids of the lab servers this process started and has not stopped yet."""
    return list(_LIVE)


def _stop(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """Stop the server's whole process group: SIGTERM, then SIGKILL if it outlives ``grace``."""
    _LIVE.pop(proc.pid, None)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    # a child the server left behind in its group dies with the group
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _stop_all() -> None:
    for proc in list(_LIVE.values()):
        _stop(proc, grace=5.0)


def _on_signal(signum, frame) -> None:
    """Stop every server first, then do what the signal did before (SIGINT: KeyboardInterrupt)."""
    _stop_all()
    previous = _PREVIOUS.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


_PREVIOUS: dict[int, object] = {}


def _guard_against_orphans() -> None:
    """Make SIGTERM, SIGINT and interpreter exit stop the servers (once per process).

    The server runs in its own session, so a signal to the test process never reaches it, and
    a SIGTERM kills Python without running ``finally`` blocks: without this, stopping the
    tests would leave the server listening.
    """
    if os.getpid() in _HANDLED:
        return
    _HANDLED.add(os.getpid())
    atexit.register(_stop_all)
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            _PREVIOUS[signum] = signal.getsignal(signum)
            signal.signal(signum, _on_signal)


@contextlib.contextmanager
def lab_server(timeout: float = 60.0, env: dict[str, str] | None = None) -> Iterator[str]:
    """Run `streamlit run app.py` headless; yield its base URL; stop it afterwards.

    The server gets its own process group, stopped as a whole on exit, on SIGTERM or SIGINT
    of this process and at interpreter exit, so an interrupted test run leaves no server.
    ``env`` adds variables to the server's environment (e.g. ``CONTEXTLAB_RUNS``).
    """
    _guard_against_orphans()
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    _LIVE[proc.pid] = proc
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
                raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{out}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"streamlit did not answer on {url} within {timeout:.0f} s")
            time.sleep(0.25)
        yield url
    finally:
        _stop(proc)


def launch_browser(playwright):
    """Return Debian's Chromium launched headless through playwright (never downloaded)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@contextlib.contextmanager
def lab_page(width: int = 1440, height: int = 1100, env: dict[str, str] | None = None) -> Iterator:
    """Yield a Chromium page beside a fresh lab server; ``page.base_url`` is the server's URL.

    Every browser test, the screenshots and the lab benchmark open the lab through here;
    ``env`` goes to the server (see ``lab_server``).
    """
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: run `bash scripts/install_browser.sh`"
    with lab_server(env=env) as url, sync_playwright() as p:
        browser = launch_browser(p)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.base_url = url
            yield page
        finally:
            browser.close()


#: True in the page once the script has finished and everything on screen is current and drawn:
#: the app says no script is running, no skeleton, no stale element, no "Running", every plotly
#: chart laid out with its tick labels. After an interaction the app may still say "not running"
#: until the server starts the rerun: tests wait for the result they expect, then for this.
#: Plotly makes its SVG before it draws the axes (and may draw them in a later frame on a busy
#: machine), so a chart counts as drawn only once every axis with tick labels has them: an
#: axis's ticks (``_vals``) are computed when it is drawn, and its labels are then on the page.
IDLE_JS = """() => {
    const axesDrawn = plot => Object.keys(plot._fullLayout).filter(k => /^[xy]axis\\d*$/.test(k)).every(k => {
        const ax = plot._fullLayout[k];
        if (!ax || !ax.visible || !ax.showticklabels) return true;
        if (!ax._vals) return false;
        return ax._vals.length === 0 || plot.querySelector('.' + ax._id + 'tick text') !== null;
    });
    // the app's own record of the script run: "initial" before the first run, then "running"
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.dataset.testScriptState !== 'notRunning') return false;
    if (app.dataset.testConnectionState !== 'CONNECTED') return false;
    if (document.querySelector('[data-testid="stSkeleton"]')) return false;
    if (document.querySelector('[data-stale="true"]')) return false;
    const status = document.querySelector('[data-testid="stStatusWidget"]');
    if (status && status.innerText.match(/Running/i)) return false;
    const charts = document.querySelectorAll('[data-testid="stPlotlyChart"]');
    return Array.from(charts).every(c => {
        const plot = c.querySelector('.js-plotly-plot');
        return plot && plot._fullLayout && c.querySelector('.main-svg') && axesDrawn(plot);
    });
}"""


#: Every chart text a reader cannot read in full: returns "text: where it is cut" for each.
#: A text is cut when it reaches past the clip rectangle of its subplot (a label above the top
#: point) or past the edge of the chart's own SVG (a title or tick label outside the margins).
CLIPPED_TEXT_JS = """() => {
    const bad = [];
    const SLACK = 1.5;
    const outside = (r, box) => r.top < box.top - SLACK || r.bottom > box.bottom + SLACK
        || r.left < box.left - SLACK || r.right > box.right + SLACK;
    const clipBox = el => {
        for (let g = el.parentElement; g && g.tagName !== 'svg'; g = g.parentElement) {
            const url = g.getAttribute('clip-path');
            if (!url || url === 'none') continue;
            const id = (url.match(/#([^)"']+)/) || [])[1];
            const rect = id && document.getElementById(id) && document.getElementById(id).querySelector('rect');
            if (!rect) continue;
            const m = g.getScreenCTM();
            const x = +rect.getAttribute('x') || 0, y = +rect.getAttribute('y') || 0;
            const p0 = new DOMPoint(x, y).matrixTransform(m);
            const p1 = new DOMPoint(x + (+rect.getAttribute('width')), y + (+rect.getAttribute('height')))
                .matrixTransform(m);
            return {left: p0.x, top: p0.y, right: p1.x, bottom: p1.y};
        }
        return null;
    };
    for (const chart of document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')) {
        const svgBox = chart.querySelector('.main-svg').getBoundingClientRect();
        for (const t of chart.querySelectorAll('svg.main-svg text')) {
            const r = t.getBoundingClientRect();
            if (!t.textContent.trim() || r.width === 0 || t.closest('.legend')) continue;
            if (outside(r, svgBox)) bad.push(t.textContent + ': outside the chart');
            const clip = clipBox(t);
            if (clip && outside(r, clip)) bad.push(t.textContent + ': cut at the plot area');
        }
    }
    return bad;
}"""


def wait_for_app(page, timeout_ms: int = 60_000) -> None:
    """Wait until the script has finished, every element is current and the charts have drawn."""
    # the title, or while presenting (no title row) the presenter's bar
    page.wait_for_selector('[data-testid="stMainBlockContainer"] h1, .st-key-presenter_bar', timeout=timeout_ms)
    page.wait_for_function(IDLE_JS, timeout=timeout_ms)


def _script_finished(payload: bytes | str) -> bool:
    """True when a websocket frame from the server says a script run has finished."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    if isinstance(payload, str):
        return False
    try:
        return ForwardMsg.FromString(payload).WhichOneof("type") == "script_finished"
    except Exception:  # not a ForwardMsg (e.g. a ping): not the end of a run
        return False


def watch_runs(page) -> None:
    """Remember the page's Streamlit websocket, so ``settle_ms`` can wait for a run's end."""

    def remember(ws) -> None:
        if ws.url.endswith("/_stcore/stream"):
            page.lab_socket = ws  # type: ignore[attr-defined]

    page.on("websocket", remember)


def settle_ms(page, action, timeout_ms: int = 60_000) -> float:
    """Return the milliseconds from ``action()`` until its script run ended and the page is drawn.

    The end of the run is the server's ``script_finished`` message on the websocket (so a
    run that changes nothing visible is still waited for); "drawn" is ``IDLE_JS``: nothing
    stale, every chart laid out. The page must have been opened after ``watch_runs(page)``.
    """
    import time

    start = time.perf_counter()
    with page.lab_socket.expect_event("framereceived", predicate=_script_finished, timeout=timeout_ms):
        action()
    page.wait_for_function(IDLE_JS, timeout=timeout_ms, polling="raf")
    return (time.perf_counter() - start) * 1000


def run_evaluate(page, limit: int = EVALUATE_LIMIT, query: str = "") -> None:
    """Open Evaluate (plus URL ``query``), run its default grid on ``limit`` bundled questions, wait."""
    import re

    page.goto(f"{page.base_url}/?view=evaluate{'&' + query if query else ''}")
    wait_for_app(page)
    box = page.get_by_label("Questions (the first N)")
    box.fill(str(limit))
    box.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name=re.compile(rf"^Run: {limit} questions × ")).click()
    page.get_by_text("Where two configurations disagree").wait_for(timeout=180_000)
    wait_for_app(page, timeout_ms=180_000)


def full_screenshot(page, path: Path, tall: int | None = None) -> Path:
    """Save the whole page to ``path``; ``tall`` first stretches the window (Streamlit scrolls inside)."""
    size = page.viewport_size
    if tall:
        page.set_viewport_size({"width": size["width"], "height": tall})
        wait_for_app(page)
    # The sidebar's collapse animation runs after the script: wait for it to end.
    page.wait_for_function("() => !document.getAnimations().some(a => a.playState === 'running')")
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)
    if tall:
        page.set_viewport_size(size)
    return path


def save_screenshots(
    out_dir: Path, views=SCREENSHOT_VIEWS, width: int = 1440, height: int = 1000, query: str = ""
) -> list[Path]:
    """Save a full-page screenshot of each view to ``out_dir``; return the paths."""
    saved = []
    suffix = "_" + query.replace("=", "-").replace("&", "_") if query else ""
    with lab_page(width, height) as page:
        for view in views:
            if view == "evaluate":
                run_evaluate(page, query=query)  # the view shows its charts after a run
                saved.append(full_screenshot(page, out_dir / f"evaluate{suffix}.png", tall=3300))
                continue
            page.goto(f"{page.base_url}/?view={view}{'&' + query if query else ''}")
            wait_for_app(page)
            saved.append(full_screenshot(page, out_dir / f"{view}{suffix}.png"))
    return saved


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--screenshots",
        type=Path,
        default=ROOT / "artifacts",
        help="folder for the pictures (default artifacts/, untracked)",
    )
    parser.add_argument(
        "--views",
        nargs="*",
        default=list(SCREENSHOT_VIEWS),
        help=f"views to shoot (default all; evaluate first runs {EVALUATE_LIMIT} questions)",
    )
    parser.add_argument("--query", default="", help="extra URL query, e.g. present=1")
    parser.add_argument("--height", type=int, default=1000, help="browser window height in pixels")
    parser.add_argument("--width", type=int, default=1440, help="browser window width in pixels")
    args = parser.parse_args()
    for path in save_screenshots(args.screenshots, args.views, width=args.width, height=args.height, query=args.query):
        print(path)
