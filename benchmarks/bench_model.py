"""Measured answers: contextlab's own cost per question, and its throughput against a plain client.

Two numbers, both against a reference in the same run, on the bundled model served locally
(``contextlab[model]``):

1. contextlab's own time per measured row (one question under one configuration), the model
   excluded: building the block and the prompt (cl100k_base, and in the model's own tokens through
   the server's ``/tokenize``), then scoring and assembling the rows from a warm response cache.
   The reference is the engine's plain build of the same blocks (``evaluate_chunk``).
2. Throughput at ``--concurrency 4`` against the local server: contextlab's ``answer_prompts``
   (cache writes included) versus a plain ``ThreadPoolExecutor`` of the official ``openai``
   client sending the same prompts with the same settings. Rounds alternate which goes first,
   each round sends the prompts with a fresh cache, and each side's prompts start with a line of
   their own (same length), so the server's prompt cache does the same work for both.
   Goal: ratio >= 0.9.

    python benchmarks/bench_model.py [--questions 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from contextlab.evaluation import RunOptions
from contextlab.evaluation.chunks import evaluate_chunk
from contextlab.evaluation.measured import MeasureSettings, plan_measured
from contextlab.models import LocalModelServer, ResponseCache, answer_prompts

GRID = ["placement=lost_in_the_middle,relevance"]


def _plain(url: str, model: str, prompts: list[str], concurrency: int, sampling: dict) -> float:
    import openai

    client = openai.OpenAI(base_url=url, api_key="no-key", timeout=600, max_retries=4)
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(lambda p: client.completions.create(model=model, prompt=p, **sampling).choices[0].text, prompts))
    return time.perf_counter() - start


def _ours(run, prompts: list[str], concurrency: int, folder: Path, tag: str) -> float:
    cache = ResponseCache(folder / f"{tag}.sqlite")
    start = time.perf_counter()
    answer_prompts(run.client, prompts, cache=cache, concurrency=concurrency)
    return time.perf_counter() - start


def _own_costs(url: str, questions: int, folder: Path) -> None:
    settings = MeasureSettings(url, api="completions", cache=folder / "own.sqlite")
    rows = questions * 2
    # warm what every run loads once per process (the bundled set, its BM25 index, cl100k_base)
    plan_measured(
        None,
        GRID,
        RunOptions(limit=1, top_k=5),
        measure=MeasureSettings(url, api="completions", use_cache=False, model_tokens=False),
    )
    start = time.perf_counter()
    options = RunOptions(limit=questions, top_k=5)
    plain = plan_measured(
        None, GRID, options, measure=MeasureSettings(url, api="completions", use_cache=False, model_tokens=False)
    )
    cl100k_s = time.perf_counter() - start
    start = time.perf_counter()
    run = plan_measured(None, GRID, options, measure=settings)
    model_tokens_s = time.perf_counter() - start
    start = time.perf_counter()
    configs = plain.plan.configs
    evaluate_chunk(plain.plan.evalset.questions, plain.plan.evalset.retriever, configs, plain.plan.options)
    engine_s = time.perf_counter() - start
    answer_prompts(run.client, run.prompts, cache=run.cache)  # fill the cache (model time)
    start = time.perf_counter()
    again = plan_measured(None, GRID, options, measure=settings)
    rebuild_s = time.perf_counter() - start
    start = time.perf_counter()
    again.run()
    score_s = time.perf_counter() - start
    print(f"contextlab's own time per measured row ({rows} rows: {questions} questions x 2 configurations):")
    print(f"  engine build alone (reference, evaluate_chunk)     {engine_s / rows * 1000:8.2f} ms")
    print(
        f"  build + prompt, cl100k_base budget                {cl100k_s / rows * 1000:8.2f} ms "
        f"({cl100k_s / max(engine_s, 1e-9):.2f}x the engine alone)"
    )
    print(
        f"  build + prompt, model's tokens via /tokenize      {model_tokens_s / rows * 1000:8.2f} ms (first time: "
        f"each text counted by the server once)"
    )
    print(f"  the same, counts remembered in the cache          {rebuild_s / rows * 1000:8.2f} ms")
    print(f"  scoring + cache lookups + rows (warm cache)       {score_s / rows * 1000:8.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, LocalModelServer(port=0, parallel=args.concurrency) as server:
        folder = Path(tmp)
        print(f"load average before: {os.getloadavg()}")
        _own_costs(server.url, args.questions, folder)
        run = plan_measured(
            None,
            GRID,
            RunOptions(limit=args.questions, top_k=5),
            measure=MeasureSettings(server.url, api="completions", use_cache=False),
        )
        prompts = list(dict.fromkeys(run.prompts))
        model = run.client.resolve_model()
        fields = run.client.request_fields()
        fields.pop("api")
        print(f"throughput: {len(prompts)} distinct prompts at concurrency {args.concurrency}, {args.rounds} rounds")
        ratios = []
        for r in range(args.rounds):
            order = ["plain", "ours"] if r % 2 == 0 else ["ours", "plain"]
            seconds = {}
            for who in order:
                # A first line of the same length, unique to this side and round, so neither side reuses
                # the KV cache the server kept from the other's prompts (llama.cpp caches prompt prefixes).
                tagged = [f"Run {r:02d}{who[0]}.\n{p}" for p in prompts]
                seconds[who] = (
                    _plain(server.url, model, tagged, args.concurrency, fields)
                    if who == "plain"
                    else _ours(run, tagged, args.concurrency, folder, f"round{r}")
                )
            ratio = seconds["plain"] / seconds["ours"]
            ratios.append(ratio)
            print(
                f"  round {r + 1} ({' then '.join(order)}): plain openai {len(prompts) / seconds['plain']:.3f} "
                f"prompts/s, contextlab {len(prompts) / seconds['ours']:.3f} prompts/s, ratio {ratio:.3f}"
            )
        print(f"contextlab / plain client throughput: {sum(ratios) / len(ratios):.3f} (goal >= 0.9)")
        print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
