"""What a pipeline pays per query: one default build of k retrieved chunks against tokenizing them.

    python benchmarks/bench_query.py                  # 20 and 200 chunks of 150 words
    python benchmarks/bench_query.py --rounds 50

Each round takes k chunks of corpus A (real text, read in place from
``../shared/data/bench/corpus_A_64k.jsonl.gz``; 150 words each, a fifth of them near copies
of others, as a retriever returns them) that no earlier round used, then, alternating which
goes first, times (a) counting their tokens with the default tokenizer (cl100k_base, one
batch: the floor a build cannot go below, since it must count them) and (b) one default
``ContextManager().build`` of them at the default budget. The token-count memo is emptied
before each, so both count cold. The table gives medians over the rounds, the median of the
per-round ratios, and the build's stage times. Goal: the build within 2x the floor at 20
and at 200 chunks.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contextlab import ContextManager, Document, PromptRequest  # noqa: E402

CORPUS = ROOT.parent / "shared" / "data" / "bench" / "corpus_A_64k.jsonl.gz"
SIZES = (20, 200)
GOAL = 2.0


def load_documents(path: Path, n: int) -> list[Document]:
    """Return the first ``n`` documents of the corpus (content, score and source)."""
    docs: list[Document] = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if len(docs) == n:
                break
            row = json.loads(line)
            docs.append(Document(content=row["content"], score=row["score"], source=row["source"]))
    return docs


def time_rounds(manager: ContextManager, docs: list[Document], k: int, rounds: int) -> dict:
    """Return the floor and build times (ms) of ``rounds`` rounds of ``k`` fresh documents."""
    memo = getattr(manager.tokenizer, "_cache", None)
    floors, builds, stages = [], [], []
    for r in range(rounds):
        batch = docs[(r * k) % (len(docs) - k) :][:k]
        texts = [d.content for d in batch]
        timed = {}
        for mode in ("floor", "build") if r % 2 == 0 else ("build", "floor"):
            if isinstance(memo, dict):
                memo.clear()
            start = time.perf_counter()
            if mode == "floor":
                manager.tokenizer.count_many(texts)
            else:
                result = manager.build(PromptRequest("what does the service do", batch))
            timed[mode] = (time.perf_counter() - start) * 1000
        floors.append(timed["floor"])
        builds.append(timed["build"])
        stages.append(result.timings_ms)
    names = sorted({name for s in stages for name in s})
    return {
        "floor": statistics.median(floors),
        "build": statistics.median(builds),
        "ratio": statistics.median(b / f for b, f in zip(builds, floors, strict=False)),
        "stages": {name: statistics.median(s.get(name, 0.0) for s in stages) for name in names},
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Print the per-query table; return 1 when the build misses 2x the floor."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=101, help="builds per size (median kept)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="corpus A's .jsonl.gz")
    args = parser.parse_args(argv)
    if not args.corpus.exists():
        raise SystemExit(f"corpus not found: {args.corpus} (pass --corpus PATH)")
    docs = load_documents(args.corpus, max(SIZES) * args.rounds + max(SIZES))
    manager = ContextManager()
    manager.build(PromptRequest("warm up", docs[:20]))  # load the tokenizer and the libraries
    load = os.getloadavg()
    results = {k: time_rounds(manager, docs, k, args.rounds) for k in SIZES}
    print(
        f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after "
        f"{os.getloadavg()[0]:.2f}; median of {args.rounds} rounds, fresh chunks each round\n"
    )
    print("| chunks | tokenize floor ms | default build ms | build / floor | dedup ms | stages (ms) |")
    print("|---|---|---|---|---|---|")
    met = True
    for k, r in results.items():
        stages = ", ".join(f"{name} {ms:.2f}" for name, ms in r["stages"].items() if ms >= 0.05)
        print(
            f"| {k} | {r['floor']:.2f} | {r['build']:.2f} | {r['ratio']:.2f}x | "
            f"{r['stages'].get('dedup', 0.0):.2f} | {stages} |"
        )
        met &= r["ratio"] <= GOAL
    print(
        f"\ngoal: build <= {GOAL}x the floor at {' and '.join(map(str, SIZES))} chunks — {'met' if met else 'MISSED'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
