"""Time `contextlab.evaluation` on the bundled NaturalQuestions-Open set against the naive loop.

    python benchmarks/bench_eval.py                 # 300 questions x 12 configurations
    python benchmarks/bench_eval.py --limit 2655    # every question
    python benchmarks/bench_eval.py --workers 2     # also: `contextlab eval` serial vs 2 Dask workers

The grid is 12 configurations: budget 256, 512, 1024, 2048 x placement lost_in_the_middle,
relevance, reversed. The naive loop does what a script without contextlab.evaluation would: for
every question and configuration, retrieve the top 20 again and build with a fresh
ContextManager (no BuildCache). ``run_evaluation`` retrieves once per question and shares one
BuildCache (token counts, dedup outcomes) across configurations. Both must produce the same
rows before any time is reported. Target: >= 5x.

Times are CPU seconds of this process for the ratio (the machine may be shared), both after
the index is built and the tokenizer's vocabulary loaded; the naive loop runs second, with the
tokenizer's count memo already warm, so the ratio is conservative.
The Dask comparison runs `contextlab eval` twice in fresh processes, wall-clock (its work
happens in other processes), cluster start included.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contextlab.evaluation import (  # noqa: E402
    RunOptions,
    expand_grid,
    load_bundled_set,
    parse_grid,
    prepare_question,
    question_metrics,
    run_evaluation,
)
from contextlab.settings import DEFAULT_CURVE_MODEL  # noqa: E402
from contextlab.tokenizers import get_tokenizer  # noqa: E402
from contextlab.types import PromptRequest  # noqa: E402

GRID = ["max_context_tokens=256,512,1024,2048", "placement=lost_in_the_middle,relevance,reversed"]
TOP_K = 20
TARGET_SPEEDUP = 5.0


def naive_rows(evalset, grid: list[str]) -> list[dict]:
    """Return the rows the slow way: retrieval and a fresh manager for every question x config."""
    configs = expand_grid(parse_grid(grid))
    rows = []
    for q in evalset.questions:
        for config in configs:
            docs = evalset.retriever.retrieve(q.query, TOP_K)
            prep = prepare_question(q, docs)
            result = config.make_manager().build(
                PromptRequest(
                    query=q.query, documents=prep.documents, max_context_tokens=config.config.max_context_tokens
                )
            )
            rows.append(
                {
                    "config": config.label,
                    "query_id": q.query_id,
                    **config.settings,
                    **question_metrics(prep, result, DEFAULT_CURVE_MODEL),
                }
            )
    return rows


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli_times(limit: int, workers: int) -> list[tuple[float, float]]:
    """Return ``(wall s, CPU s)`` of `contextlab eval` serially and on ``workers`` Dask workers.

    Each run is a fresh process (nothing warm: tokenizer, index and memo start empty); CPU is
    that process's and all its descendants' (the scheduler, nannies and workers), which says
    what the split costs independently of how busy a shared machine's cores are. The two
    results.csv files must be byte-identical.
    """
    grid = [arg for spec in GRID for arg in ("--grid", spec)]
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        outs = [Path(tmp) / "serial.csv", Path(tmp) / "dask.csv"]
        for out, extra in zip(outs, ([], ["--workers", str(workers)]), strict=False):
            cmd = [
                sys.executable,
                "-m",
                "contextlab.cli",
                "eval",
                "--limit",
                str(limit),
                *grid,
                "--out",
                str(out),
                *extra,
            ]
            start, cpu = time.perf_counter(), _children_cpu()
            subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append((time.perf_counter() - start, _children_cpu() - cpu))
        if outs[0].read_bytes() != outs[1].read_bytes():
            raise SystemExit("the Dask run and the serial run wrote different rows")
    return times


def naive_ratio(evalset) -> None:
    """Print CPU seconds of run_evaluation and of the naive loop over ``evalset``, and their ratio."""
    start = time.process_time()
    fast = run_evaluation(evalset, GRID, RunOptions(top_k=TOP_K)).rows
    fast_s = time.process_time() - start
    start = time.process_time()
    slow = naive_rows(evalset, GRID)
    slow_s = time.process_time() - start
    if slow != fast:
        raise SystemExit("the naive loop and run_evaluation disagree: no timing is reported")
    ratio = slow_s / fast_s
    print(f"naive loop (retrieve + fresh build per row): {slow_s:7.2f} s CPU  ({slow_s / len(slow) * 1000:.2f} ms/row)")
    print(f"run_evaluation (retrieve once, BuildCache):  {fast_s:7.2f} s CPU  ({fast_s / len(fast) * 1000:.2f} ms/row)")
    print(f"speed-up: {ratio:.1f}x  (target >= {TARGET_SPEEDUP:g}x: {'met' if ratio >= TARGET_SPEEDUP else 'NOT met'})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=300, help="questions of the bundled set (default 300)")
    parser.add_argument("--workers", type=int, default=0, help="also time a local Dask cluster of N workers")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive-loop ratio (Dask timing only)")
    args = parser.parse_args()

    evalset = load_bundled_set().limited(args.limit)
    evalset.retriever.retrieve("warm up the index", TOP_K)  # build the in-memory index outside the timings
    # ...and load the tokenizer's vocabulary (a third of a second, once a process): whichever
    # ran first paid it, always run_evaluation. The count is not remembered for any text timed.
    get_tokenizer().encoding  # noqa: B018 - a property: loads it
    n = len(evalset.questions)
    print(f"bundled NaturalQuestions-Open, {n} questions x 12 configurations = {12 * n:,} rows")

    if not args.no_naive:
        naive_ratio(evalset)
    if args.workers:
        (serial_s, serial_cpu), (dask_s, dask_cpu) = cli_times(args.limit, args.workers)
        print(f"`contextlab eval`, fresh processes, {n} questions x 12 configurations, identical results.csv:")
        print(f"  serial:      {serial_s:6.1f} s wall, {serial_cpu:6.1f} s CPU")
        print(
            f"  {args.workers} workers:   {dask_s:6.1f} s wall, {dask_cpu:6.1f} s CPU (cluster start included; "
            f"{serial_s / dask_s:.2f}x wall; load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
