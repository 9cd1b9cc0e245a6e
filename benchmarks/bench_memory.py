"""Peak memory of `contextlab build` against the size of its input, and where it goes.

    python benchmarks/bench_memory.py              # 50 MB of JSON Lines (~46k documents)
    python benchmarks/bench_memory.py --mb 10      # a smaller input

The input is real text: the first lines of the shared benchmark corpus
(``/work/shared/data/bench/corpus_A_64k.jsonl.gz``, or ``--corpus``) up to ``--mb`` megabytes,
written to a temporary directory (never into the project). Every measurement runs in a fresh
Python process that reports its own peak resident memory as the kernel counts it (``VmHWM`` in
``/proc/self/status``: the high-water mark of that process's memory since its ``exec``; rusage's
``ru_maxrss`` would also count the parent's memory at the fork):

- ``import``: the interpreter with contextlab's CLI imported (the floor every row includes);
- ``load``: ``load_file`` on the input (the loaders); ``load .json`` and ``load .csv`` read the
  same documents written as one JSON array and as CSV (ratios against their own sizes);
- ``load + tokenize``: plus the engine's token count of every document (``count_many``);
- ``load + dedup``: plus near-duplicate detection over every document (``find_duplicates``);
- ``contextlab build``: the command end to end (``contextlab.cli.main(["build", FILE, ...])``,
  which is what the ``contextlab`` script calls).

Each row's ratio is its peak over the input's size (the reference measured in the same run);
the target is ``contextlab build`` under 8x the input.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path("/work/shared/data/bench/corpus_A_64k.jsonl.gz")
TARGET_RATIO = 8.0
QUERY = "how do I stop a running test and what am I billed for"

# Each stage is a child program; it gets the input path and the byte limit as argv[1:3]
# (and the build, the command's arguments after them).
_LOAD = (
    "import sys\n"
    "from contextlab.loaders import load_file\n"
    "docs = load_file(sys.argv[1], max_bytes=int(sys.argv[2]), max_documents=10**7)\n"
)
_BUILD = (
    "import contextlab.cli, os, sys\n"
    "sys.stdout = open(os.devnull, 'w')\n"
    "code = contextlab.cli.main(sys.argv[3:])\n"
    "assert code == 0, code\n"
)
STAGES: dict[str, str] = {
    "import": "import contextlab.cli\n",
    "load": _LOAD,
    "load + tokenize": _LOAD
    + (
        "from contextlab.tokenizers import count_many, get_tokenizer\n"
        "counts = count_many(get_tokenizer('cl100k_base'), [d.content for d in docs])\n"
    ),
    "load + dedup": _LOAD
    + (
        "from contextlab.stages.dedup import find_duplicates\n"
        "outcome = find_duplicates([d.content for d in docs], 0.8)\n"
    ),
}


# Appended to every stage: print the process's own peak resident memory (kB) as the last line.
_REPORT = (
    "\nimport sys\n"
    "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
    "print('VmHWM', hwm, file=sys.stderr)\n"
)


def write_input(corpus: Path, megabytes: float, directory: Path) -> tuple[Path, int, int]:
    """Return (path, bytes, lines) of a JSONL file holding the corpus's first ``megabytes``."""
    limit = int(megabytes * 1_000_000)
    path = directory / f"corpus_{megabytes:g}mb.jsonl"
    size = lines = 0
    with gzip.open(corpus, "rb") as src, path.open("wb") as out:
        for line in src:
            if size + len(line) > limit:
                break
            out.write(line)
            size += len(line)
            lines += 1
    if size < limit * 0.9:
        raise SystemExit(f"{corpus} holds only {size:,} bytes; ask for fewer --mb")
    return path, size, lines


def write_other_formats(path: Path) -> list[Path]:
    """Return the JSONL input rewritten as one JSON array and as CSV (content, score, source)."""
    as_json, as_csv = path.with_suffix(".json"), path.with_suffix(".csv")
    with path.open(encoding="utf-8") as src, as_json.open("w", encoding="utf-8") as out:
        out.write("[" + ",\n".join(line.rstrip("\n") for line in src) + "]")
    with path.open(encoding="utf-8") as src, as_csv.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["content", "score", "source"])
        for line in src:
            record = json.loads(line)
            writer.writerow([record.get("content", ""), record.get("score", ""), record.get("source", "")])
    return [as_json, as_csv]


def peak_rss(code: str, *args: str) -> int:
    """Return the peak resident memory, in bytes, of a fresh Python running ``code`` with ``args``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-c", code + _REPORT, *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    last = result.stderr.strip().splitlines()[-1:] or [""]
    if result.returncode != 0 or not last[0].startswith("VmHWM "):
        raise SystemExit(f"{code.splitlines()[-1]} failed ({result.returncode}):\n{result.stderr}")
    return int(last[0].split()[1]) * 1024


def build_args(path: Path, size: int) -> list[str]:
    """Return the `contextlab build` arguments for the input (limits raised to fit it)."""
    argv = ["build", str(path), "-q", QUERY, "--max-bytes", str(size + 1)]
    usage = subprocess.run(
        [sys.executable, "-m", "contextlab.cli", "build", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout
    if "--max-documents" in usage:
        argv += ["--max-documents", str(10**7)]
    return argv


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--mb", type=float, default=50.0, help="input size in megabytes (default 50)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="contextlab-bench-memory-") as tmp:
        path, size, lines = write_input(args.corpus, args.mb, Path(tmp))
        print(f"input: {size / 1e6:.1f} MB of JSON Lines, {lines:,} documents ({args.corpus.name})")
        rows = [(name, peak_rss(code, str(path), str(size + 1))) for name, code in STAGES.items()]
        rows.append(("contextlab build", peak_rss(_BUILD, str(path), str(size + 1), *build_args(path, size))))
        others = [
            (
                f"load {other.suffix}",
                other.stat().st_size,
                peak_rss(STAGES["load"], str(other), str(other.stat().st_size + 1)),
            )
            for other in write_other_formats(path)
        ]
    floor = rows[0][1]
    print(f"{'stage':<18} {'peak RSS':>10} {'x input':>8} {'above import':>13}")
    for name, input_size, peak in [(name, size, peak) for name, peak in rows] + others:
        print(f"{name:<18} {peak / 1e6:>7.0f} MB {peak / input_size:>7.1f}x {(peak - floor) / 1e6:>10.0f} MB")
    ratio = rows[-1][1] / size
    verdict = "meets" if ratio < TARGET_RATIO else "misses"
    print(f"contextlab build peaks at {ratio:.1f}x the input: {verdict} the target of < {TARGET_RATIO:g}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
