"""Near copies that a reader would call near copies: recall and precision per chunk length.

    python benchmarks/bench_near_copies.py                 # 300 positives, 300 negatives per length
    python benchmarks/bench_near_copies.py --pairs 100     # quicker
    python -m pip install -r requirements-bench.txt        # rensa (benchmark only)

Labelled pairs are cut from real text: the words of corpus A's base chunks
(``../shared/data/bench/corpus_A_64k.jsonl.gz``, read in place, never copied), laid end to end.
For each length (20, 40, 80, 150 and 300 words):

- positives (must be removed): a chunk and a near copy of it with words inserted, deleted or
  replaced at random places (1-2 edits at 20 words, 1-4 at the other lengths; the edit kind
  and the inserted words drawn at random from the corpus);
- negatives (must stay): half are neighbouring chunks that overlap by 20% of their words (the
  way a chunker cuts a page), half are two unrelated chunks that end in the same boilerplate
  sentence (a real sentence of the corpus, 8 to 16 words).

Each pair is deduplicated on its own (the kept chunk first) at the same threshold (0.85, the
default) by three methods: contextlab's default measure (word edit similarity of normalised
text), seed 000's 5-word shingle Jaccard (contextlab's seed-compatible mode, exact), and rensa's
MinHash-LSH (``RMinHash`` with 128 permutations over the same shingles, ``RMinHashLSH`` with 16
bands, the estimate deciding). Recall is the share of positives removed; precision the share
of removed pairs that were positives. Goal: recall >= 0.95 at every length with precision >= 0.99.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CORPUS = ROOT.parent / "shared" / "data" / "bench" / "corpus_A_64k.jsonl.gz"
THRESHOLD = 0.85
LENGTHS = (20, 40, 80, 150, 300)
NUM_PERM = 128
NUM_BANDS = 16
GOAL_RECALL, GOAL_PRECISION = 0.95, 0.99
OVERLAP = 0.20


def load_stream(path: Path, limit: int = 6000) -> tuple[list[str], list[str]]:
    """Return the words of the first ``limit`` base chunks end to end, and their sentences."""
    words: list[str] = []
    sentences: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if not record.get("source", "").startswith("A-base"):
                continue
            words.extend(record["content"].split())
            for sentence in re.split(r"(?<=[.!?])\s+", record["content"]):
                if 8 <= len(sentence.split()) <= 16 and sentence.endswith("."):
                    sentences.append(" ".join(sentence.split()))
            if len(sentences) > 0 and len(words) >= limit * 150:
                break
    return words, sentences


def edit(words: list[str], edits: int, vocabulary: Sequence[str], rng: random.Random) -> list[str]:
    """Return ``words`` with ``edits`` random insertions, deletions or replacements."""
    out = list(words)
    for _ in range(edits):
        kind = rng.choice(("insert", "delete", "replace"))
        if kind == "insert":
            out.insert(rng.randint(0, len(out)), rng.choice(vocabulary))
        elif kind == "delete" and len(out) > 1:
            del out[rng.randrange(len(out))]
        else:
            at = rng.randrange(len(out))
            out[at] = rng.choice([w for w in (rng.choice(vocabulary) for _ in range(3)) if w != out[at]] or ["x"])
    return out


def labelled_pairs(
    words: list[str], sentences: list[str], length: int, n: int, rng: random.Random
) -> list[tuple[str, str, bool, str]]:
    """Return (kept, candidate, is_copy, kind) pairs at ``length`` words."""
    top = len(words) - 3 * length
    most = 2 if length <= 20 else 4
    pairs = []
    for _ in range(n):
        start = rng.randrange(top)
        chunk = words[start : start + length]
        pairs.append((" ".join(chunk), " ".join(edit(chunk, rng.randint(1, most), words, rng)), True, "near copy"))
    for k in range(n):
        start = rng.randrange(top)
        if k % 2 == 0:
            step = length - round(OVERLAP * length)
            pairs.append(
                (
                    " ".join(words[start : start + length]),
                    " ".join(words[start + step : start + step + length]),
                    False,
                    "20% overlap",
                )
            )
        else:
            other = (start + rng.randrange(2 * length, top // 2)) % top
            sentence = rng.choice(sentences)
            pairs.append(
                (
                    " ".join(words[start : start + length]) + " " + sentence,
                    " ".join(words[other : other + length]) + " " + sentence,
                    False,
                    "boilerplate",
                )
            )
    return pairs


def contextlab_method(measure: str) -> Callable[[str, str], bool]:
    from contextlab.stages.dedup import find_duplicates

    return lambda kept, other: find_duplicates([kept, other], THRESHOLD, measure).kept == [0]


def rensa_method() -> Callable[[str, str], bool]:
    from rensa import RMinHash, RMinHashLSH

    def shingled(text: str) -> list[str]:
        words = text.lower().split()
        return [" ".join(words[i : i + 5]) for i in range(len(words) - 4)] or [" ".join(words)]

    def removes(kept: str, other: str) -> bool:
        lsh = RMinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, num_bands=NUM_BANDS)
        first, second = RMinHash(num_perm=NUM_PERM, seed=42), RMinHash(num_perm=NUM_PERM, seed=42)
        first.update(shingled(kept))
        second.update(shingled(other))
        lsh.insert(0, first)
        return 0 in lsh.query(second) and second.jaccard(first) >= THRESHOLD

    return removes


def score(method: Callable[[str, str], bool], pairs) -> dict[str, float | int]:
    """Return recall, precision and the false removals by kind for one method."""
    tp = sum(1 for a, b, copy, _ in pairs if copy and method(a, b))
    fp = {
        kind: sum(1 for a, b, copy, k in pairs if not copy and k == kind and method(a, b))
        for kind in ("20% overlap", "boilerplate")
    }
    positives = sum(1 for p in pairs if p[2])
    removed = tp + sum(fp.values())
    return {
        "recall": tp / positives,
        "precision": tp / removed if removed else 1.0,
        "fp_overlap": fp["20% overlap"],
        "fp_boilerplate": fp["boilerplate"],
    }


def _margins(pairs) -> tuple[float, float, float]:
    """Return the default measure's lowest similarity on a copy and highest on each negative kind."""
    from contextlab.stages.dedup import word_similarity

    def sims(kind: str) -> list[float]:
        return [word_similarity(a, b) for a, b, _, k in pairs if k == kind]

    return min(sims("near copy")), max(sims("20% overlap")), max(sims("boilerplate"))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the recall/precision table; return 1 when the default measure misses the goal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=300, help="positives (and negatives) per length")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="corpus A's .jsonl.gz")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    if not args.corpus.exists():
        raise SystemExit(f"corpus not found: {args.corpus} (pass --corpus PATH)")
    words, sentences = load_stream(args.corpus)
    methods = {
        "contextlab word edit (default)": contextlab_method("word_edit"),
        "shingle Jaccard (seed 000)": contextlab_method("shingle_jaccard"),
    }
    try:
        methods["rensa MinHash-LSH"] = rensa_method()
    except ImportError:
        print("(rensa not installed: pip install -r requirements-bench.txt; its rows are skipped)")
    print(
        f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; "
        f"threshold {THRESHOLD}; {args.pairs} positives and {args.pairs} negatives per length "
        f"(half 20% overlap, half a shared boilerplate sentence), corpus A\n"
    )
    print("| words | method | recall | precision | removed: 20% overlap | removed: boilerplate |")
    print("|---|---|---|---|---|---|")
    met, margins = True, []
    for length in LENGTHS:
        pairs = labelled_pairs(words, sentences, length, args.pairs, random.Random(args.seed + length))
        for name, method in methods.items():
            r = score(method, pairs)
            print(
                f"| {length} | {name} | {r['recall']:.3f} | {r['precision']:.3f} | "
                f"{r['fp_overlap']} | {r['fp_boilerplate']} |"
            )
            if name.startswith("contextlab"):
                met &= r["recall"] >= GOAL_RECALL and r["precision"] >= GOAL_PRECISION
        margins.append((length, *_margins(pairs)))
    print(
        "\nThe default measure's margin: its lowest similarity on a near copy, its highest on a "
        "negative (the threshold must lie between them):\n"
    )
    print("| words | lowest near copy | highest 20% overlap | highest boilerplate |")
    print("|---|---|---|---|")
    for length, low, overlap, boiler in margins:
        print(f"| {length} | {low:.3f} | {overlap:.3f} | {boiler:.3f} |")
    print(
        f"\ngoal (default measure): recall >= {GOAL_RECALL} and precision >= {GOAL_PRECISION} at every "
        f"length — {'met' if met else 'MISSED'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
