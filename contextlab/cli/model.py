"""``contextlab model serve``: the bundled model on 127.0.0.1; and the flags every measured command shares.

``add_model_options`` declares ``--endpoint --model --api --shots --concurrency --cache/--no-cache
--yes`` (``eval`` and ``curve`` use them), ``measure_settings`` turns them into the library's
``MeasureSettings``, and ``confirm_calls`` says what a run will send and asks before sending it.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from .flags import note
from .inputs import int_at_least

__all__ = ["add_model", "add_model_options", "measure_settings", "confirm_calls", "interrupted"]

#: Requests in flight at once: a few per core of a local server, more for a hosted one.
concurrency = int_at_least(1, 256)
shots = int_at_least(0, 16)
port = int_at_least(0, 65535)


def add_model_options(p: argparse.ArgumentParser, *, required: bool = False) -> None:
    """Add the options of a model in the loop: endpoint, model, API, shots, concurrency, cache, --yes."""
    from ..models import APIS, DEFAULT_CONCURRENCY

    p.add_argument(
        "--endpoint",
        required=required,
        metavar="URL",
        help="an OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1 (`contextlab model serve` "
        "prints one); the key only from CONTEXTLAB_API_KEY, else OPENAI_API_KEY",
    )
    p.add_argument(
        "--model",
        "-m",
        default=None,
        metavar="NAME",
        help="the model at --endpoint that answers (default: the first it lists)",
    )
    p.add_argument(
        "--api",
        choices=APIS,
        default="chat",
        help="chat messages or plain completions (base models such as the bundled one: completions)",
    )
    p.add_argument(
        "--shots",
        type=shots,
        default=0,
        metavar="N",
        help="prepend N solved examples from questions outside the run (base models need them)",
    )
    p.add_argument(
        "--concurrency",
        type=concurrency,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"requests in flight at once (default {DEFAULT_CONCURRENCY})",
    )
    cache = p.add_mutually_exclusive_group()
    cache.add_argument(
        "--cache", metavar="PATH", help="the SQLite response cache (default ~/.cache/contextlab/responses.sqlite)"
    )
    cache.add_argument("--no-cache", action="store_true", help="send every prompt and keep no answer")
    p.add_argument("--yes", "-y", action="store_true", help="send the calls without asking first (scripts)")


def measure_settings(args: argparse.Namespace, model: str | None) -> Any:
    """Return the library's ``MeasureSettings`` for the parsed options (``model`` as resolved by the command)."""
    from ..evaluation.measured import MeasureSettings

    return MeasureSettings(
        endpoint=args.endpoint,
        model=model,
        api=args.api,
        shots=args.shots,
        concurrency=args.concurrency,
        cache=args.cache,
        use_cache=not args.no_cache,
    )


def confirm_calls(cost: Any, endpoint: str, yes: bool) -> bool:
    """Return True when the run may send ``cost`` (a ``CallPlan``): nothing to send, ``--yes``, or the user said so.

    Off a terminal without ``--yes`` nothing is asked (a script must not hang): that is a refusal,
    said in one line with the flag that allows it.
    """
    if cost.calls == 0:
        note(f"every answer comes from the cache ({cost.cached}); nothing is sent")
        return True
    note(f"this run sends {cost.describe(endpoint)}")
    if yes:
        return True
    if not sys.stdin.isatty():
        note("not sending: stdin is not a terminal, so nobody can answer; rerun with --yes to send them")
        return False
    try:
        reply = input("contextlab: send them? [y/N] ")
    except EOFError:
        reply = ""
    return reply.strip().lower() in ("y", "yes")


def interrupted(stop: KeyboardInterrupt) -> int:
    """Say in one line what Ctrl-C stopped (calls sent, answered and kept; a rerun resumes); return 130."""
    from ..errors import RunInterrupted

    note(str(stop) if isinstance(stop, RunInterrupted) else "interrupted before any call was sent; nothing was written")
    return 130


def cmd_model_serve(args: argparse.Namespace) -> int:
    from ..models import BUNDLED_MODEL, GEMMA_TERMS_URL, LocalModelServer

    server = LocalModelServer(port=args.port, parallel=args.parallel, context=args.context)
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_signal)
    try:
        url = server.start()
        # One write: with PYTHONUNBUFFERED, print() sends the newline on its own, and llama.cpp's
        # log (on the same stream when both are redirected) can land between the URL and its end.
        sys.stdout.write(url + "\n")
        sys.stdout.flush()
        note(
            f"serving {BUNDLED_MODEL} (Gemma 3 270M, Q4_K_M) on 127.0.0.1 only; Ctrl-C or SIGTERM stops it. "
            f"Gemma Terms of Use: {GEMMA_TERMS_URL}. Measure with: --endpoint {url} --api completions --shots 2"
        )
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        signal.signal(signal.SIGTERM, previous)
    note("stopped")
    return 0


def add_model(sub: Any) -> None:
    """Add ``contextlab model serve``."""
    p = sub.add_parser(
        "model",
        help="the bundled local model (Gemma 3 270M on llama.cpp, contextlab[model])",
        description="Run the bundled model as an OpenAI-compatible server on 127.0.0.1.",
    )
    actions = p.add_subparsers(dest="model_command", metavar="ACTION", parser_class=type(p))
    serve = actions.add_parser(
        "serve",
        help="serve the bundled model until Ctrl-C or SIGTERM; prints its URL",
        description="Start llama.cpp's server in this process on 127.0.0.1 with the "
        "bundled Gemma 3 270M (assembled once from its package and checked "
        "against its SHA-256) and print the OpenAI-compatible base URL.",
        epilog="example: contextlab model serve --port 8080, then contextlab eval "
        "--endpoint http://127.0.0.1:8080/v1 --api completions --shots 2 ...",
    )
    serve.add_argument(
        "--port", type=port, default=8080, help="TCP port on 127.0.0.1 (default 8080; 0 picks a free one)"
    )
    serve.add_argument(
        "--parallel", type=int_at_least(1, 64), default=4, metavar="N", help="requests answered at once (default 4)"
    )
    serve.add_argument(
        "--context",
        type=int_at_least(256, 32768),
        default=4096,
        metavar="TOKENS",
        help="tokens one request may hold, prompt and answer (default 4096; Gemma 3 270M reads up to 32768); "
        "each of the --parallel slots holds this many, so memory grows with both",
    )
    p.set_defaults(handler=lambda args: cmd_model_serve(args) if args.model_command == "serve" else _need_action(p))


def _need_action(p: argparse.ArgumentParser) -> int:
    p.print_usage(sys.stderr)
    print(f"{p.prog}: error: give an action: serve (see `{p.prog} --help`)", file=sys.stderr)
    return 2
