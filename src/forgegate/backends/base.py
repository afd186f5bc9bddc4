"""The one Backend protocol every model server speaks, and the values it exchanges.

A backend only generates: it never scores. It must honour ``max_tokens`` on the
client side (stop reading the stream at the cap, whatever the server does) and
say where its token count came from.
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

from forgegate.backends.names import BACKENDS
from forgegate.core.limits import DEFAULT_IDLE_S, DEFAULT_TIMEOUT_S
from forgegate.core.records import Completion, GenerationRequest, StreamStop

__all__ = ["BACKENDS", "Backend", "BackendConfig", "BackendError", "BackendFactory"]


class BackendError(Exception):
    """A request failed. ``transient`` errors (5xx, connection, stream cut) are retried. ``status``: the HTTP
    status a server refused the request with, when it did; ``retry_after_s``: how long it asked to be left
    alone first (``Retry-After``), which the engine's backoff honours."""

    def __init__(self, message: str, *, transient: bool, status: int | None = None,
                 retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status
        self.retry_after_s = retry_after_s




def base_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a server's base URL (None when it can): it must be http(s)://host[:port][/path]."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - reading it validates it (a non-numeric or out-of-range port raises)
    except ValueError as exc:
        return f"'{url}' is not a URL ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"'{url}' is not an http(s) URL with a host (e.g. http://127.0.0.1:11434)"
    return None


class BackendConfig(BaseModel):
    """How to reach a model; from the CLI flags or a plan's arm."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = None
    base_urls: tuple[str, ...] = ()
    adapter: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    """Whole-request deadline (server backends): a request not finished by then is a transient error."""
    idle_timeout_s: float | None = None
    """Longest silence on the connection; None: ``min(timeout_s, DEFAULT_IDLE_S)``."""
    api_key_env: str | None = None
    n_ctx: int = 2048
    n_threads: int | None = None
    # Where a local model runs (transformers): 'auto' picks cuda, then mps, then cpu, and the dtype from it.
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int | None = None
    """Most requests decoded together per base model; None: chosen from the device."""
    # Managed servers (llamacpp, vllm): forgegate starts, watches and stops them.
    adapter_name: str | None = None
    """The name this arm's adapter is served under (the arm's name in a plan)."""
    lora_modules: tuple[tuple[str, str], ...] = ()
    """(name, path) of every adapter over this base, so that one server loads them all."""
    replicas: int = 1
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    distributed_executor_backend: str | None = None
    max_model_len: int | None = None
    port: int | None = None
    """A fixed port for the first replica (the next ones take the ports after it); None: a free one."""
    startup_timeout_s: float = 600.0
    server_seed: int = 0

    @property
    def idle_s(self) -> float:
        return self.idle_timeout_s if self.idle_timeout_s is not None else min(self.timeout_s, DEFAULT_IDLE_S)

    def problems(self) -> list[str]:
        """What in this config cannot work, worded for the user (the flags' names); empty when all can."""
        found = [f"{flag} must be a positive number of seconds, not {value:g}"
                 for flag, value in (("--timeout", self.timeout_s), ("--idle-timeout", self.idle_timeout_s))
                 if value is not None and not (value > 0 and math.isfinite(value))]
        found += [f"--base-url {problem}" for url in self.base_urls if (problem := base_url_problem(url))]
        return found


@runtime_checkable
class Backend(Protocol):
    """A model server. Implementations register in ``BACKENDS`` under their name."""

    name: str
    config: BackendConfig

    async def generate(self, request: GenerationRequest, stop: StreamStop | None = None) -> Completion:
        """Generate one completion, capped at ``request.max_tokens`` on the client side.

        ``stop`` (the loop detector, handed in by the pipeline): while the answer streams, ask
        ``stop.due(tokens so far)`` and, when due, ``stop(text, token_texts)`` with exactly the text and token
        texts that would be stored; when it answers True, end the stream there and return that answer with
        finish ``loop``. A backend that cannot stream ignores it (the answer is then judged after the fact).
        """
        ...

    async def model_digest(self) -> str | None:
        """A content digest of the model where the server reports one (Ollama's sha256)."""
        ...

    async def aclose(self) -> None: ...


class BackendFactory(Protocol):
    def __call__(self, config: BackendConfig) -> Backend: ...

