"""Dedup's time and memory on real prose against rensa's MinHash-LSH, and on corpora shaped to be slow.

    python benchmarks/bench_dedup.py                  # corpus A at 16k and 64k documents, against rensa
    python benchmarks/bench_dedup.py --adversarial    # templates, copies, long near copies
    python benchmarks/bench_dedup.py --repeat 9       # nine rounds (five by default)
    python -m pip install -r requirements-bench.txt   # rensa (benchmark only)

Corpus A (``../shared/data/bench/corpus_A_64k.jsonl.gz``, read in place, never copied): 64,000
documents of 150-word chunks cut from real text with 20% overlap, 20% near copies with one to
four words edited, 5% copies that differ in case and whitespace. Each method drops, in input
order, every document that matches one already kept, at threshold 0.85:

- contextlab: ``find_duplicates`` with the default measure (word edit similarity of normalised
  text; exact);
- contextlab-seed: ``find_duplicates`` with the seed-compatible measure (5-word shingle Jaccard;
  exact);
- rensa: ``RMinHash`` (128 permutations) over the same 5-word shingles, ``RMinHashLSH`` (16
  bands) for candidates, the signature estimate decides (rensa's Rust core).

Every run is a process of its own (so its peak memory is its own): wall and CPU seconds, the
peak RSS growth over the loaded texts, and the load average (``os.getloadavg()``) beside each
figure, since the machine may be shared. A round runs each method once, one after the other,
and a ratio is the median of the rounds' own ratios: a machine that slows down between rounds
slows both sides of each. Goals (at a load of 2 or less): corpus A at 64k within
1.0x rensa's time in the same run; 16k -> 64k at most 4.6x; RSS growth at most 400 MB;
``--adversarial``: 20,000 templated and 20,000 identical records within 2x the all-distinct
time (under 4 GB); two texts of 100,000 words one edit apart (random one-letter words, and one
word repeated) among 45 short documents within 20 s and 1.5 GB, at 200,000 words 60 s and 3 GB.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path("/work/shared/data/bench/corpus_A_64k.jsonl.gz")
if not CORPUS.exists():  # beside the main checkout
    CORPUS = ROOT.parent / "shared" / "data" / "bench" / "corpus_A_64k.jsonl.gz"
THRESHOLD = 0.85
ADVERSARIAL = ("distinct", "templated-8", "templated-20", "identical")
LONG = ("letters-100000", "repeated-100000", "letters-200000", "repeated-200000")


def load_texts(n: int) -> list[str]:
    """Return the ``content`` of the first ``n`` documents of corpus A."""
    texts: list[str] = []
    with gzip.open(CORPUS, "rt", encoding="utf-8") as lines:
        for line in lines:
            if len(texts) == n:
                break
            texts.append(json.loads(line)["content"])
    return texts


def long_pair(kind: str, size: int) -> list[str]:
    """Return two texts of ``size`` words one edit apart among 45 short documents."""
    rng = random.Random(5)
    words = ["a"] * size if kind == "repeated" else [rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(size)]
    copy = list(words)
    copy[size // 2] = "b" if kind == "repeated" else "Z"
    short = [" ".join(f"s{i}w{j}" for j in range(7)) for i in range(45)]
    return short[:20] + [" ".join(words)] + short[20:] + [" ".join(copy)]


def corpus(name: str) -> list[str]:
    """Return the texts a corpus name stands for."""
    if name.startswith("corpus-A@"):
        return load_texts(int(name.split("@")[1]))
    if name.split("-")[0] in ("letters", "repeated"):
        kind, size = name.split("-")
        return long_pair(kind, int(size))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from dedup_corpora import CORPORA

    return CORPORA[name][0](20_000)


def shingle_strings(text: str) -> list[str]:
    """Return the seed's 5-word shingles of ``text`` (one of all its words if under five)."""
    words = text.lower().split()
    if len(words) < 5:
        return [" ".join(words)] if words else []
    return [" ".join(words[i : i + 5]) for i in range(len(words) - 4)]


def run_rensa(texts: list[str]) -> int:
    from rensa import RMinHash, RMinHashLSH

    lsh = RMinHashLSH(threshold=THRESHOLD, num_perm=128, num_bands=16)
    signatures, dropped = [], 0
    for i, text in enumerate(texts):
        signature = RMinHash(num_perm=128, seed=42)
        signature.update(shingle_strings(text))
        signatures.append(signature)
        if any(signature.jaccard(signatures[j]) >= THRESHOLD for j in lsh.query(signature)):
            dropped += 1
        else:
            lsh.insert(i, signature)
    return dropped


def run_contextlab(texts: list[str], measure: str = "word_edit") -> int:
    from contextlab.stages.dedup import find_duplicates

    return len(find_duplicates(texts, THRESHOLD, measure).pairs)


def child(method: str, name: str) -> None:
    """Run one method on one corpus in this process and print what it took, as JSON."""
    texts = corpus(name)
    warm = [f"warm up record {i} before it is timed" for i in range(60)]
    warm += ["Réchauffer — une fois.", "zero\u200bwidth\x0bline\u3000space"]  # Unicode tables: built once
    run = {
        "contextlab": run_contextlab,
        "contextlab-seed": lambda t: run_contextlab(t, "shingle_jaccard"),
        "rensa": run_rensa,
    }[method]
    run(warm)  # imports and tables built on first use are not timed
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    dropped = run(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(json.dumps({"wall": wall, "cpu": cpu, "dropped": dropped, "mb": growth, "load": load}))


def run_once(method: str, name: str, timeout: float) -> dict[str, float]:
    """Return what one run of ``method`` on ``name`` took, in a process of its own."""
    proc = subprocess.run(
        [sys.executable, __file__, "--child", method, name],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if proc.returncode:
        raise SystemExit(f"{method} on {name} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return dict(json.loads(proc.stdout))


def measure_rounds(jobs: list[tuple[str, str]], repeat: int, timeout: float) -> list[list[dict[str, float]]]:
    """Run every job once a round, ``repeat`` rounds, and print each job's medians. Runs of one
    round sit side by side in time, so a ratio of two of them sees the same machine."""
    rounds = [[run_once(method, name, timeout) for method, name in jobs] for _ in range(repeat)]
    for at, (method, name) in enumerate(jobs):
        runs = [r[at] for r in rounds]
        out = {key: statistics.median(r[key] for r in runs) for key in ("wall", "cpu", "mb", "dropped")}
        print(
            f"{name:18} {method:16} wall {out['wall']:7.2f} s  cpu {out['cpu']:7.2f} s  "
            f"peak +{out['mb']:6.0f} MB  dropped {int(out['dropped']):6}  load {max(r['load'] for r in runs):.2f}",
            flush=True,
        )
    return rounds


def measure(method: str, name: str, repeat: int, timeout: float) -> dict[str, float]:
    """Return the median wall and CPU seconds, peak growth and drops of ``repeat`` runs."""
    runs = [r[0] for r in measure_rounds([(method, name)], repeat, timeout)]
    return {key: statistics.median(r[key] for r in runs) for key in ("wall", "cpu", "mb", "dropped")}


def median_ratio(rounds: list[list[dict[str, float]]], top: int, bottom: int) -> float:
    """Return the median, over rounds, of job ``top``'s wall time over job ``bottom``'s."""
    return statistics.median(r[top]["wall"] / r[bottom]["wall"] for r in rounds)


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adversarial", action="store_true", help="templates, copies and long near copies")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (each figure their median)")
    parser.add_argument("--seed-measure", action="store_true", help="time the seed-compatible measure too")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a run may take")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.adversarial:
        base = measure("contextlab", "distinct", args.repeat, args.timeout)
        for name in ADVERSARIAL[1:]:
            got = measure("contextlab", name, args.repeat, args.timeout)
            ok = got["wall"] <= 2 * base["wall"] and got["mb"] <= 4096
            print(f"  {name}: {got['wall'] / base['wall']:.2f}x distinct (goal <= 2x, 4 GB): {verdict(ok)}")
        for name in LONG:
            got = measure("contextlab", name, args.repeat, args.timeout)
            seconds, mb = (20, 1536) if name.endswith("100000") else (60, 3072)
            ok = got["wall"] <= seconds and got["mb"] <= mb and got["dropped"] == 1
            print(f"  {name}: the near pair found, {got['wall']:.2f} s, +{got['mb']:.0f} MB: {verdict(ok)}")
        return
    jobs = [("contextlab", "corpus-A@16000"), ("contextlab", "corpus-A@64000"), ("rensa", "corpus-A@64000")]
    if args.seed_measure:
        jobs.append(("contextlab-seed", "corpus-A@64000"))
    rounds = measure_rounds(jobs, args.repeat, args.timeout)
    ratio, growth = median_ratio(rounds, 1, 2), median_ratio(rounds, 1, 0)
    print("each round's 64k / rensa:", " ".join(f"{r[1]['wall'] / r[2]['wall']:.2f}" for r in rounds))
    print("each round's 64k / 16k:  ", " ".join(f"{r[1]['wall'] / r[0]['wall']:.2f}" for r in rounds))
    peak = statistics.median(r[1]["mb"] for r in rounds)
    print(f"corpus A 64k: {ratio:.2f}x rensa, the median of each round's ratio (goal <= 1.0x): {verdict(ratio <= 1.0)}")
    print(f"corpus A 16k -> 64k: {growth:.2f}x (goal <= 4.6x): {verdict(growth <= 4.6)}")
    print(f"corpus A 64k peak growth: {peak:.0f} MB (goal <= 400 MB): {verdict(peak <= 400)}")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
