"""A position curve on the bundled server: the run's wall time against the server's own busy time.

The reference is the server itself, in the same run: llama.cpp reports per request the time it
spent (``timings``: prompt and generation milliseconds, prompt tokens processed and served from
the slot's cache). Summed over the requests and divided by the requests in flight at once, that
is how long the server was busy; the wall time over it says how much the client left the server
waiting (1.00: never). Goal: <= 1.15 at the same concurrency.

It also states the share of prompt tokens the server served from its cache (every prompt of a
curve shares its instruction and solved examples; ``CurvePlan.sending_order`` sends prompts
that share a prefix together), the prompt tokens per second, and minutes per 100 questions,
with the load average beside them (the machine is shared: read every number against it).

    python benchmarks/bench_curve.py [--questions 100] [--documents 5] [--positions 1,3,5]
                                     [--parallel 2] [--shots 2] [--with-conditions]
                                     [--endpoint URL --skip S --cache PATH]

``--endpoint`` measures a server already running (started with ``--parallel`` slots) instead of
starting one; ``--skip S`` takes the questions after the first S and ``--cache`` keeps the
answers (only calls not in it are sent and counted), so a benchmark can be a slice of a longer
measurement on the same server.
"""

from __future__ import annotations

import argparse
import os
import time

from contextlab.evaluation.curve import CurvePlan, plan_curve
from contextlab.models import LocalModelServer, ModelClient, ResponseCache, answer_prompts
from contextlab.models.pace import measured_pace


def _load() -> str:
    return "/".join(f"{v:.2f}" for v in os.getloadavg())


def _measure(url: str, prompts: list[str], args: argparse.Namespace):
    client = ModelClient(url, api="completions")
    client.complete("Question: what is the capital of France?\nAnswer:")  # load and warm, not counted
    cache = ResponseCache(args.cache)
    started = time.monotonic()
    answers = answer_prompts(client, prompts, cache=cache, concurrency=args.parallel)
    return measured_pace(answers, time.monotonic() - started, args.parallel)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--documents", type=int, default=5)
    parser.add_argument("--positions", default="1,3,5")
    parser.add_argument("--parallel", type=int, default=2, help="server slots, and requests in flight")
    parser.add_argument("--shots", type=int, default=2)
    parser.add_argument(
        "--with-conditions",
        action="store_true",
        help="also closed-book and gold-only (5 prompts a question instead of 3)",
    )
    parser.add_argument("--endpoint", default=None, help="a running server's URL (default: start one)")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first S questions")
    parser.add_argument("--cache", default=":memory:", help="the response cache (default: none kept)")
    args = parser.parse_args()

    whole = plan_curve(
        documents=args.documents,
        positions=args.positions,
        limit=args.skip + args.questions,
        shots=args.shots,
        closed_book=args.with_conditions,
        oracle=args.with_conditions,
    )
    ids = {q.query_id for q in whole.questions[args.skip :]}
    plan = CurvePlan(
        whole.documents,
        whole.positions,
        whole.shots,
        whole.questions[args.skip :],
        [c for c in whole.cases if c.query_id in ids],
        whole.template,
    )
    prompts = plan.sending_order()
    load_before = _load()
    if args.endpoint:
        pace = _measure(args.endpoint, prompts, args)
    else:
        with LocalModelServer(port=0, parallel=args.parallel, context=4096) as server:
            pace = _measure(server.url, prompts, args)
    load_after = _load()
    busy = pace.server_busy_s
    per_100 = pace.wall_s / 60 / (pace.calls / (len(prompts) / len(plan.questions))) * 100 if pace.calls else 0.0
    print(
        f"curve: {len(plan.questions)} questions x {len(prompts) // len(plan.questions)} prompts "
        f"({args.documents} documents, positions {args.positions}, {args.shots} shots), "
        f"{pace.calls} calls sent ({len(prompts) - pace.calls} from the cache), concurrency {args.parallel} on "
        f"{args.parallel} server slots"
    )
    print(
        f"{'wall s':>8} {'server busy s':>14} {'wall/busy':>10} {'cached share':>13} {'prompt tok/s':>13} "
        f"{'min/100 q':>10}  load average (before; after)"
    )
    ratio = f"{pace.wall_s / busy:.2f}x" if busy else "-"
    share = f"{100 * pace.cached_share:.0f}%" if pace.cached_share is not None else "-"
    print(
        f"{pace.wall_s:8.1f} {busy or 0:14.1f} {ratio:>10} {share:>13} {pace.prompt_tokens_per_s or 0:13.0f} "
        f"{per_100:10.1f}  {load_before}; {load_after}"
    )
    for line in pace.lines():
        print(f"  {line}")


if __name__ == "__main__":
    main()
