"""Exact near-duplicate detection (both of contextlab's measures) against MinHash-LSH on real prose, in one run.

    python benchmarks/bench_dedup.py              # 4k, 16k and 64k documents, 3 runs each
    python benchmarks/bench_dedup.py --quick      # 4k and 16k documents, one run each
    python benchmarks/bench_dedup.py --adversarial --before ../main   # the adversarial corpora, before and after
    python -m pip install -r requirements-bench.txt   # rensa and datasketch (benchmark only)

Corpus A (``../shared/data/bench/corpus_A_64k.jsonl.gz``, read in place, never copied): 64,000
documents of 150-word chunks cut from real text with 20% overlap, 20% near copies with one to
four words edited, 5% copies that differ in case and whitespace. Each method dedups the first
n documents at threshold 0.85, greedily in input order (a document is dropped when it matches
one already kept):

- contextlab: ``find_duplicates`` with the default measure, word edit similarity of
  normalised text (exact: a partition filter, then each candidate measured on its words'
  hashes up to the distance the threshold allows; the inner loops in C where the install built
  them, on every core; ``--numpy`` times numpy's code and rapidfuzz for them too,
  ``--one-thread`` the C loops on one core).
- contextlab-seed: ``find_duplicates`` with seed 000's measure, Jaccard of 5-word shingles
  (exact: prefix filtering on shingle-frequency order).
- rensa: ``RMinHash`` (128 permutations) over the same 5-word shingles, ``RMinHashLSH``
  (16 bands) for candidates, the signature estimate decides (rensa's Rust core).
- datasketch: ``MinHash`` (128 permutations, ``update_batch``) and ``MinHashLSH``, likewise.

Every method runs in a process of its own, once per run, so its peak RSS is its own: the
table shows CPU seconds (the machine may be shared; CPU time is what other people's work
disturbs least), the median of ``--repeat`` runs, and the peak RSS growth over the loaded
texts. For the MinHash methods, recall is the share of the documents the exact shingle answer
(contextlab-seed) drops that the method drops too; "wrong" counts documents it drops that the
exact answer keeps (the two contextlab rows are exact for their own measure). A last table
times the seed's naive scan (every document against every kept one,
``tests/seed_reference.py``) against the seed measure's ``find_duplicates`` on the first 2,000
chunks, and checks they keep the same set.

``--adversarial`` runs the default measure (threshold 0.85) on the corpora of
``dedup_corpora.py`` (templated records at 8 and 20 words, identical texts, texts sharing no
3-word run, 1,000 texts of 10,000 words 1 % apart, mixed lengths of 5 to 5,000 words two
ways (150 words on average, and log-uniform), and distinct texts of the log-uniform lengths)
and on corpus A, with rensa beside corpus A: CPU and wall seconds, the candidate pairs verified,
the documents dropped and the peak RSS growth of each, with the load average at the start and
end of each run. ``--before DIR`` runs the same on the contextlab checkout in DIR too (the
code before a change), ``--numpy`` this checkout with numpy's code in place of the C loops,
``--one-thread`` this checkout on one core; ``--repeat N`` runs each N times (each in its own
process, in turn) and gives the medians of their times, so one slow moment of a shared
machine does not decide a goal.
Each run has a time limit (``--timeout``) and a memory limit (``--memory-gb``), so quadratic
work is reported as stopped instead of taking the machine.
Goals (after), each judged on wall time and on CPU time (the C loops run on every core, so
their wall time is less than their CPU time; rensa runs on one): every adversarial corpus
within 2x the time of the all-distinct one and 5 s (``mixed``, of 4.8 times its words, within
2x its all-distinct control of the same lengths instead; ``mixed-150`` is the mixed lengths at
the all-distinct corpus's word count); corpus A within 0.5x rensa's time; 16,000 to
64,000 documents of corpus A at most 4.6x the time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Read in place, never copied: beside the main checkout, or two levels up from a worktree.
CORPUS = next(
    (
        p
        for p in (
            ROOT.parent / "shared" / "data" / "bench" / "corpus_A_64k.jsonl.gz",
            ROOT.parent.parent / "shared" / "data" / "bench" / "corpus_A_64k.jsonl.gz",
        )
        if p.exists()
    ),
    ROOT.parent / "shared" / "data" / "bench" / "corpus_A_64k.jsonl.gz",
)
THRESHOLD = 0.85
NUM_PERM = 128
NUM_BANDS = 16
FULL_SIZES = (4000, 16000, 64000)
QUICK_SIZES = (4000, 16000)
METHODS = ("contextlab", "contextlab-seed", "rensa", "datasketch")
NAIVE_SIZE = 2000
TARGET_GROWTH = 4.6  # 16k -> 64k documents
TARGET_NAIVE = 100.0  # x the naive scan at 2,000 chunks


#: What every method runs once before it is timed: enough texts (one not ASCII) to take each
#: path its corpus takes, so imports and tables built on first use (contextlab's filter and
#: Unicode tables, a tenth of a second; rensa's and datasketch's own) are not in the time.
WARM_UP = [f"warm up the method on record {i} once before it is timed" for i in range(60)] + [
    "Réchauffer la méthode une fois — avant qu'elle soit chronométrée."
]


def load_texts(path: Path, n: int) -> list[str]:
    """Return the ``content`` of the first ``n`` documents of the corpus."""
    texts: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if len(texts) == n:
                break
            texts.append(json.loads(line)["content"])
    if len(texts) < n:
        raise SystemExit(f"{path} holds {len(texts)} documents, fewer than the {n} asked for")
    return texts


def shingle_strings(text: str) -> list[str]:
    """Return the seed's 5-word shingles of ``text`` (one of all its words if under five)."""
    words = text.lower().split()
    if len(words) < 5:
        return [" ".join(words)] if words else []
    return [" ".join(words[i : i + 5]) for i in range(len(words) - 4)]


# -- the methods, each returning the positions it drops ----------------------------------------


def run_contextlab(texts: Sequence[str]) -> list[int]:
    from contextlab.stages.dedup import find_duplicates

    return [p.dropped_index for p in find_duplicates(texts, THRESHOLD).pairs]


def run_contextlab_numpy(texts: Sequence[str]) -> list[int]:
    """``run_contextlab`` with numpy's code where the C loops would run (a machine without a
    C compiler at install)."""
    from contextlab.stages.dedup import word_hashing

    word_hashing.KERNELS = None
    return run_contextlab(texts)


def run_contextlab_one_thread(texts: Sequence[str]) -> list[int]:
    """``run_contextlab`` with the C loops on one core (a one-core machine)."""
    from contextlab.stages.dedup import cores

    cores.THREADS = 1
    return run_contextlab(texts)


def run_contextlab_seed(texts: Sequence[str]) -> list[int]:
    from contextlab.stages.dedup import SEED_MEASURE, find_duplicates

    return [p.dropped_index for p in find_duplicates(texts, THRESHOLD, SEED_MEASURE).pairs]


def run_rensa(texts: Sequence[str]) -> list[int]:
    from rensa import RMinHash, RMinHashLSH

    lsh = RMinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, num_bands=NUM_BANDS)
    signatures, dropped = [], []
    for i, text in enumerate(texts):
        signature = RMinHash(num_perm=NUM_PERM, seed=42)
        signature.update(shingle_strings(text))
        signatures.append(signature)
        if any(signature.jaccard(signatures[j]) >= THRESHOLD for j in lsh.query(signature)):
            dropped.append(i)
        else:
            lsh.insert(i, signature)
    return dropped


def run_datasketch(texts: Sequence[str]) -> list[int]:
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
    signatures, dropped = [], []
    for i, text in enumerate(texts):
        signature = MinHash(num_perm=NUM_PERM, seed=1)
        signature.update_batch([s.encode() for s in shingle_strings(text)])
        signatures.append(signature)
        if any(signature.jaccard(signatures[j]) >= THRESHOLD for j in lsh.query(signature)):
            dropped.append(i)
        else:
            lsh.insert(i, signature)
    return dropped


def run_naive(texts: Sequence[str]) -> list[int]:
    from contextlab.types import Document
    from tests.seed_reference import SeedContextManager

    docs = [Document(content=t) for t in texts]
    unique, _ = SeedContextManager(dedup_threshold=THRESHOLD)._deduplicate(docs)
    kept = {id(d) for d in unique}
    return [i for i, d in enumerate(docs) if id(d) not in kept]


RUNNERS = {
    "contextlab": run_contextlab,
    "contextlab-numpy": run_contextlab_numpy,
    "contextlab-1thread": run_contextlab_one_thread,
    "contextlab-seed": run_contextlab_seed,
    "rensa": run_rensa,
    "datasketch": run_datasketch,
    "naive": run_naive,
}


def worker(method: str, n: int, corpus: Path) -> None:
    """Run one method once on the first ``n`` documents; print its numbers as JSON."""
    sys.path.insert(0, str(ROOT))
    texts = load_texts(corpus, n)
    run = RUNNERS[method]
    run(WARM_UP)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    wall, cpu = time.perf_counter(), time.process_time()
    dropped = run(texts)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"cpu": cpu, "wall": wall, "rss_mb": max(0, peak - before) / 1024, "dropped": dropped}))


def measure(method: str, n: int, corpus: Path, repeat: int) -> dict:
    """Return the median CPU and wall seconds, the largest RSS growth and the drops of a method."""
    runs = []
    for _ in range(repeat):
        proc = subprocess.run(
            [sys.executable, __file__, "--worker", method, str(n), "--corpus", str(corpus)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode:
            raise SystemExit(f"{method} at n={n} failed:\n{proc.stderr}")
        runs.append(json.loads(proc.stdout.splitlines()[-1]))
        print(f"  {method:>10} n={n}: {runs[-1]['cpu']:.2f} s CPU", file=sys.stderr, flush=True)
    return {
        "cpu": statistics.median(r["cpu"] for r in runs),
        "wall": statistics.median(r["wall"] for r in runs),
        "rss_mb": max(r["rss_mb"] for r in runs),
        "dropped": set(runs[-1]["dropped"]),
    }


# -- the adversarial corpora (--adversarial) ----------------------------------------------------

ADVERSARIAL = (
    "templated-8",
    "templated-20",
    "identical",
    "distinct",
    "long-1pct",
    "mixed-150",
    "mixed",
    "distinct-mixed",
    "corpus-A",
)
#: A corpus of far more words than the all-distinct one, held to an all-distinct control of its
#: own lengths instead: corpus -> control.
CONTROLS = {"mixed": "distinct-mixed"}
BASELINE = "distinct"
TARGET_VS_DISTINCT = 2.0
TARGET_SECONDS = 5.0
TARGET_VS_RENSA = 0.5


def _status_kb(field: str) -> int:
    """Return a field of /proc/self/status (VmRSS, VmHWM) in kB, or the peak RSS when absent."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _count_verified() -> list[int]:
    """Count the candidate pairs the default measure verifies, in the checkout imported."""
    seen = [0]
    try:
        from contextlab.stages.dedup import verify  # the kept-only pass
    except ImportError:  # before it: one batch of every candidate pair
        from contextlab.stages.dedup import edit_measure

        batch = edit_measure._pair_similarities

        def counted(wh, a, b, threshold):
            seen[0] += a.size
            return batch(wh, a, b, threshold)

        edit_measure._pair_similarities = counted
        return seen
    many, one = verify.Verifier.similarities, verify.Verifier.similarity

    def similarities(self, a, b):
        seen[0] += a.size
        return many(self, a, b)

    def similarity(self, a, b):
        seen[0] += 1
        return one(self, a, b)

    verify.Verifier.similarities, verify.Verifier.similarity = similarities, similarity
    return seen


def adversarial_worker(method: str, source: str, code: str, memory_gb: int) -> None:
    """Run one method once on the texts of ``source`` (a file of one a line, or corpus A's
    .jsonl.gz and how many of its documents: ``PATH@N``) with the contextlab checkout ``code``
    first on the path; print its numbers as JSON."""
    limit = memory_gb << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.path.insert(0, code)
    path, _, count = source.partition("@")
    texts = load_texts(Path(path), int(count)) if count else Path(path).read_text(encoding="utf-8").split("\n")
    measured = method.startswith("contextlab") and method != "contextlab-seed"
    seen = _count_verified() if measured else [0]
    run = RUNNERS[method]
    run(WARM_UP)
    seen[0] = 0  # the warm-up's pairs are not the corpus's
    try:  # peak RSS from here on (Linux): the generator's and the loader's peaks do not count
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
            clear.write("5")
        before = _status_kb("VmRSS")
    except OSError:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    dropped = run(texts)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(
        json.dumps(
            {
                "cpu": cpu,
                "wall": wall,
                "rss_mb": max(0, _status_kb("VmHWM") - before) / 1024,
                "verified": seen[0] if measured else None,
                "dropped": len(dropped),
                "load": [load, os.getloadavg()[0]],
            }
        )
    )


def _write_corpus(name: str, n: int, folder: Path) -> tuple[str, int]:
    """Return the file holding corpus ``name`` (n texts, one a line) and its word count."""
    if name == "corpus-A":  # read in place by each run
        return f"{CORPUS}@{n}", sum(len(t.split()) for t in load_texts(CORPUS, n))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from dedup_corpora import CORPORA

    texts = CORPORA[name][0](n)
    path = folder / f"{name}-{n}.txt"
    path.write_text("\n".join(texts), encoding="utf-8")
    return str(path), sum(len(t.split()) for t in texts)


def _adversarial_run(method: str, source: str, code: Path, timeout: float, memory_gb: int) -> dict:
    """Return one worker's numbers, or why it stopped (``stopped``)."""
    load = os.getloadavg()[0]
    try:
        proc = subprocess.run(
            [sys.executable, __file__, "--adv-worker", method, source, str(code), "--memory-gb", str(memory_gb)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"stopped": f"> {timeout:.0f} s", "load": [load, os.getloadavg()[0]]}
    if proc.returncode:
        out_of_memory = "MemoryError" in proc.stderr or proc.returncode < 0
        return {
            "stopped": f"out of memory (> {memory_gb} GB)" if out_of_memory else "failed",
            "load": [load, os.getloadavg()[0]],
            "error": proc.stderr[-400:],
        }
    return json.loads(proc.stdout.splitlines()[-1])


def adversarial(args: argparse.Namespace) -> int:
    """Print the adversarial table (each corpus after, and before with --before); return 1
    when a goal is missed."""
    import tempfile

    versions = [("after", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    results: dict[tuple[str, str], dict] = {}
    sizes: dict[str, tuple[int, int]] = {}
    with tempfile.TemporaryDirectory(prefix="contextlab-bench-") as folder:
        for spec in args.corpora.split(","):
            name, _, count = spec.partition("@")
            n = int(count) if count else (64000 if name == "corpus-A" else _full_size(name))
            source, words = _write_corpus(name, n, Path(folder))
            sizes[spec] = (n, words)
            runs = [(label, "contextlab", code) for label, code in versions]
            runs += [("after, numpy", "contextlab-numpy", ROOT)] if args.numpy else []
            runs += [("after, one thread", "contextlab-1thread", ROOT)] if args.one_thread else []
            runs += [("rensa", "rensa", ROOT)] if name == "corpus-A" else []
            for label, method, code in runs:
                results[(spec, label)] = _median_run(
                    [
                        _adversarial_run(method, source, code, args.timeout, args.memory_gb)
                        for _ in range(args.repeat or 1)
                    ]
                )
                print(
                    f"  {spec} {label}: {results[(spec, label)].get('cpu', results[(spec, label)].get('stopped'))}",
                    file=sys.stderr,
                    flush=True,
                )
    _print_adversarial(results, sizes, [v for v, _ in versions])
    return _adversarial_verdicts(results, sizes)


def _median_run(runs: list[dict]) -> dict:
    """Return one row for runs of a method on a corpus: the medians of their CPU and wall
    seconds, the largest peak RSS growth, the load at the first start and the last end (the
    first run that stopped, when one did)."""
    stopped = next((r for r in runs if "stopped" in r), None)
    if stopped is not None or len(runs) == 1:
        return stopped or runs[0]
    row = dict(runs[-1])
    row.update(
        cpu=statistics.median(r["cpu"] for r in runs),
        wall=statistics.median(r["wall"] for r in runs),
        rss_mb=max(r["rss_mb"] for r in runs),
        load=[runs[0]["load"][0], runs[-1]["load"][1]],
        runs=len(runs),
    )
    return row


def _full_size(name: str) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from dedup_corpora import CORPORA

    return CORPORA[name][1]


def _print_adversarial(results: dict, sizes: dict, versions: list[str]) -> None:
    rows = []
    for (spec, label), r in results.items():
        n, words = sizes[spec]
        load = f"{r['load'][0]:.1f} → {r['load'][1]:.1f}"
        if "stopped" in r:
            rows.append(
                (spec, f"{n:,}", f"{words:,}", label, "stopped: " + r["stopped"], "—", "—", "—", "—", "—", load)
            )
            continue
        verified = "—" if r["verified"] is None else f"{r['verified']:,}"
        rows.append(
            (
                spec,
                f"{n:,}",
                f"{words:,}",
                label,
                f"{r['cpu']:.2f}",
                f"{r['wall']:.2f}",
                f"{r['cpu'] / words * 1e6:.3f}",
                verified,
                f"{r['dropped']:,}",
                f"{r['rss_mb']:.0f}",
                load,
            )
        )
    repeat = max((r.get("runs", 1) for r in results.values()), default=1)
    runs = "one run each" if repeat == 1 else f"the median of {repeat} runs each"
    print(
        f"Default measure (word edit similarity), threshold {THRESHOLD}, {runs} in its own "
        f"process; load average (1 min) at the start and end of each {'run' if repeat == 1 else 'set'}.\n"
    )
    print_table(
        (
            "corpus",
            "documents",
            "words",
            "code",
            "CPU s",
            "wall s",
            "CPU s / M words",
            "pairs verified",
            "dropped",
            "peak RSS growth MB",
            "load",
        ),
        rows,
    )


def _verdict(what: str, ratio: dict[str, float], goal: float, unit: str = "x") -> int:
    """Print a goal on wall and CPU time; return 1 when either misses it."""
    ok = {m: r <= goal for m, r in ratio.items()}
    print(
        f"{what}: wall {ratio['wall']:.2f}{unit}, CPU {ratio['cpu']:.2f}{unit} (goal <= {goal:g}{unit}): "
        + ", ".join(f"{'met' if ok[m] else 'MISSED'} on {m}" for m in ("wall", "cpu"))
    )
    return 0 if all(ok.values()) else 1


def _adversarial_verdicts(results: dict, sizes: dict) -> int:
    """Print each goal on wall and CPU time (see the module doc); return 1 when one is missed
    on either."""
    missed = 0
    base = results.get((BASELINE, "after"), {})
    times = ("wall", "cpu")
    for (spec, label), r in results.items():
        if (
            label != "after"
            or spec in (BASELINE, "corpus-A")
            or spec in CONTROLS.values()
            or "@" in spec
            or "wall" not in r
        ):
            continue  # the goals are for the full-size corpora
        missed += _verdict(f"{spec}, seconds", {m: r[m] for m in times}, TARGET_SECONDS, " s")
        control = results.get((CONTROLS.get(spec, ""), "after"), {})
        if "wall" in base and spec in CONTROLS:  # a corpus of another size: held to its own control
            words, base_words = sizes[spec][1], sizes[BASELINE][1]
            print(
                f"{spec} / the all-distinct corpus: wall {r['wall'] / base['wall']:.2f}x, CPU "
                f"{r['cpu'] / base['cpu']:.2f}x ({words / base_words:.1f}x its words; held to "
                f"{CONTROLS[spec]} instead)"
            )
        elif "wall" in base:
            missed += _verdict(
                f"{spec} / the all-distinct corpus", {m: r[m] / base[m] for m in times}, TARGET_VS_DISTINCT
            )
        if "wall" in control:
            words, control_words = sizes[spec][1], sizes[CONTROLS[spec]][1]
            missed += _verdict(
                f"{spec} / {CONTROLS[spec]}, the all-distinct corpus of its lengths ({words:,} "
                f"and {control_words:,} words)",
                {m: r[m] / control[m] for m in times},
                TARGET_VS_DISTINCT,
            )
    ours, rensa = results.get(("corpus-A", "after"), {}), results.get(("corpus-A", "rensa"), {})
    if "wall" in ours and "wall" in rensa:
        missed += _verdict(
            f"corpus A / rensa ({ours['wall']:.2f} s against {rensa['wall']:.2f} s wall)",
            {m: ours[m] / rensa[m] for m in times},
            TARGET_VS_RENSA,
        )
    small = results.get(("corpus-A@16000", "after"), {})
    if "wall" in ours and "wall" in small:
        missed += _verdict(
            "corpus A, 16,000 -> 64,000 documents", {m: ours[m] / small[m] for m in times}, TARGET_GROWTH
        )
    return 1 if missed else 0


def print_table(header: Sequence[str], rows: list[Sequence[str]]) -> None:
    """Print a Markdown table."""
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its tables; return 1 when contextlab differs from the seed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4k and 16k documents, one run each")
    parser.add_argument(
        "--sizes", type=lambda s: tuple(int(x) for x in s.split(",")), help="comma-separated document counts"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="runs per method and size (3; with --adversarial 1, the table's times their medians)",
    )
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated methods")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive-scan table")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="corpus A's .jsonl.gz")
    parser.add_argument("--adversarial", action="store_true", help="the adversarial corpora's table")
    parser.add_argument(
        "--corpora",
        default=",".join(ADVERSARIAL),
        help="with --adversarial: comma-separated corpora, NAME or NAME@DOCUMENTS",
    )
    parser.add_argument("--before", type=Path, help="with --adversarial: also run the checkout in this folder")
    parser.add_argument("--one-thread", action="store_true", help="with --adversarial: this checkout on one core too")
    parser.add_argument(
        "--numpy",
        action="store_true",
        help="with --adversarial: also run this checkout with numpy's code in place of the C loops",
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="with --adversarial: seconds a run may take")
    parser.add_argument("--memory-gb", type=int, default=8, help="with --adversarial: address space a run may use")
    parser.add_argument("--worker", nargs=2, metavar=("METHOD", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--adv-worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.adv_worker:
        adversarial_worker(*args.adv_worker, args.memory_gb)
        return 0
    if args.adversarial:
        return adversarial(args)
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), args.corpus)
        return 0
    if not args.corpus.exists():
        raise SystemExit(f"corpus not found: {args.corpus} (pass --corpus PATH)")
    sizes = args.sizes or (QUICK_SIZES if args.quick else FULL_SIZES)
    repeat = args.repeat or (1 if args.quick else 3)
    methods = [m for m in args.methods.split(",") if m]

    results = {(m, n): measure(m, n, args.corpus, repeat) for n in sizes for m in methods}
    rows = []
    for n in sizes:
        exact = results.get(("contextlab", n))
        shingle_truth = results.get(("contextlab-seed", n))
        for m in methods:
            r = results[(m, n)]
            recall = wrong = "—"
            if shingle_truth is not None and m in ("rensa", "datasketch"):
                truth = shingle_truth["dropped"]
                recall = f"{len(r['dropped'] & truth) / len(truth):.2f}" if truth else "—"
                wrong = str(len(r["dropped"] - truth))
            versus = f"{r['cpu'] / exact['cpu']:.1f}x" if exact else "—"
            rows.append(
                (
                    f"{n:,}",
                    m,
                    f"{r['cpu']:.2f}",
                    f"{r['wall']:.2f}",
                    versus,
                    f"{len(r['dropped']):,}",
                    recall,
                    wrong,
                    f"{r['rss_mb']:.0f}",
                )
            )
    load = os.getloadavg()
    print(
        f"Corpus A, first n documents, threshold {THRESHOLD} (contextlab: word edit similarity; the "
        f"others: Jaccard over 5-word shingles); median of {repeat} run(s), each in its own process; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}.\n"
    )
    print_table(
        (
            "n",
            "method",
            "CPU s",
            "wall s",
            "time vs contextlab",
            "dropped",
            "recall (shingles)",
            "wrong drops",
            "peak RSS growth MB",
        ),
        rows,
    )
    print()
    for m in methods:
        if (m, 16000) in results and (m, 64000) in results:
            growth = results[(m, 64000)]["cpu"] / results[(m, 16000)]["cpu"]
            verdict = (
                f" (target <= {TARGET_GROWTH}x: {'met' if growth <= TARGET_GROWTH else 'MISSED'})"
                if m.startswith("contextlab")
                else ""
            )
            print(f"{m}: 16k -> 64k documents took {growth:.2f}x the time{verdict}")
    if args.no_naive:
        return 0
    naive = measure("naive", NAIVE_SIZE, args.corpus, 1)
    ours = measure("contextlab-seed", NAIVE_SIZE, args.corpus, max(repeat, 3))
    same = naive["dropped"] == ours["dropped"]
    speedup = naive["cpu"] / ours["cpu"]
    print(f"\nThe seed's naive scan against find_duplicates, first {NAIVE_SIZE:,} chunks of corpus A:\n")
    print_table(
        ("method", "CPU s", "speed-up", "same kept set"),
        [
            ("naive scan (seed 000)", f"{naive['cpu']:.2f}", "1x", "—"),
            (
                "contextlab find_duplicates (seed measure)",
                f"{ours['cpu']:.3f}",
                f"{speedup:.0f}x",
                "yes" if same else "NO",
            ),
        ],
    )
    print(f"\ntarget >= {TARGET_NAIVE:.0f}x the naive scan: {'met' if speedup >= TARGET_NAIVE else 'MISSED'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
