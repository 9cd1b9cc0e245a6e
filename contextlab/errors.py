"""Every exception contextlab raises on purpose. Each bad-input error is also a ``ValueError``."""

from __future__ import annotations

__all__ = [
    "ContextLabError",
    "InvalidInputError",
    "BudgetError",
    "LoadError",
    "StoreError",
    "EndpointError",
    "HTTPFailure",
    "BadReply",
    "CacheError",
    "ClusterError",
    "RunInterrupted",
]


class ContextLabError(Exception):
    """Base class of every error contextlab raises on purpose."""


class InvalidInputError(ContextLabError, ValueError):
    """An argument or a document field has a value contextlab cannot use.

    ``field`` names the library field at fault (``"max_context_tokens"``, ``"documents[3].score"``)
    when one is, so a front end can say which of its own inputs to fix; the message starts with it.
    """

    def __init__(self, *args: object, field: str | None = None) -> None:
        super().__init__(*args)
        self.field = field

    def __reduce__(self) -> tuple[object, ...]:
        # Keep ``field`` when the error crosses a process boundary (a Dask worker's error).
        return (_rebuild, (type(self), self.args, self.field))


class BudgetError(InvalidInputError):
    """A token budget is too small for what must always fit (for example the query)."""


class LoadError(InvalidInputError):
    """Input documents could not be read; the message names the file, the record and the fix."""


class StoreError(InvalidInputError):
    """A SQLite store file cannot be opened or used (not a database, or another schema)."""


class EndpointError(ContextLabError):
    """A model endpoint cannot be used: unreachable, the model unknown, the key refused, or a failed call.

    The message is one line that says what happened and what to do; it never holds an API key.
    ``status`` is the HTTP status the endpoint answered (None when none came back).
    """

    def __init__(self, *args: object, status: int | None = None) -> None:
        super().__init__(*args)
        self.status = status


class HTTPFailure(ContextLabError):
    """An HTTP call that gave no usable reply: ``reason`` one line, ``kind`` its cause, ``transient`` if retryable."""

    def __init__(
        self,
        reason: str,
        *,
        status: int | None = None,
        transient: bool = False,
        retry_after: float | None = None,
        kind: str = "connection",
    ) -> None:
        super().__init__(reason)
        # status: the HTTP status answered (None: none came back); transient: a retry may succeed (a timeout,
        # a hang-up, 429, 5xx); retry_after: the wait the server asked for; kind: what failed, for a caller
        # that words it ("refused", "timeout", "redirect", "too_large", "not_json", "status", "connection",
        # "dns", "tls", "proxy"; for a server that answered, not as HTTP promises: "cut_off", "not_http", "encoding").
        self.reason = reason
        self.status = status
        self.transient = transient
        self.retry_after = retry_after
        self.kind = kind


class BadReply(ContextLabError, ValueError):
    """A server's reply that is not what the API promises; the message says what was wrong, in one line."""


class CacheError(ContextLabError):
    """The response cache file cannot be used (another program's file, or a write failed: a full disk).

    The message names the file, says what was kept, and what to do.
    """


class ClusterError(ContextLabError):
    """The Dask cluster a run used went away mid-run: its scheduler, or its last worker."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a batch of calls: what was queued was cancelled, every answer received is in the cache.

    A ``KeyboardInterrupt`` (so nothing that catches ``Exception`` swallows it) whose message is
    the one line to print: how many calls were answered and kept, and that a rerun resumes.
    """


def _rebuild(cls: type[InvalidInputError], args: tuple[object, ...], field: str | None) -> InvalidInputError:
    """Return the error ``cls(*args, field=field)`` (what unpickling an error calls)."""
    return cls(*args, field=field)
