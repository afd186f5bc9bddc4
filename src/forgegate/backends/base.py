"""The one Backend protocol every model server speaks, and the values it exchanges.

A backend only generates: it never scores. It must honour ``max_tokens`` on the
client side (stop reading the stream at the cap, whatever the server does) and
say where its token count came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from forgegate.registry import Registry

FinishReason = Literal["stop", "length", "error"]
TokenSource = Literal["stream-chunks", "server-usage", "tokenizer", "embedded-tokens"]


class GenerationRequest(BaseModel):
    """One request to a model: everything that changes the answer is here (and in the store)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: str
    max_tokens: int = Field(gt=0)
    seed: int | None = None
    temperature: float = 0.0
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    chat: bool = True
    system: str | None = None


@dataclass(frozen=True)
class Completion:
    """What a backend returns. ``tokens`` never exceeds the request's ``max_tokens``."""

    text: str
    tokens: int
    token_source: TokenSource
    finish: FinishReason
    latency_s: float
    ttft_s: float | None = None
    token_texts: tuple[str, ...] | None = None
    model_digest: str | None = None
    endpoint: str | None = None
    extra: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int | None = None
    """Input tokens as the backend counted them (None: the backend did not report them)."""


class BackendError(Exception):
    """A request failed. ``transient`` errors (5xx, connection, stream cut) are retried."""

    def __init__(self, message: str, *, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient


class BackendConfig(BaseModel):
    """How to reach a model; from the CLI flags or a plan's arm."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = None
    base_urls: tuple[str, ...] = ()
    adapter: str | None = None
    timeout_s: float = 120.0
    api_key_env: str | None = None
    n_ctx: int = 2048
    n_threads: int | None = None


@runtime_checkable
class Backend(Protocol):
    """A model server. Implementations register in ``BACKENDS`` under their name."""

    name: str
    config: BackendConfig

    async def generate(self, request: GenerationRequest) -> Completion:
        """Generate one completion, capped at ``request.max_tokens`` on the client side."""
        ...

    async def model_digest(self) -> str | None:
        """A content digest of the model where the server reports one (Ollama's sha256)."""
        ...

    async def aclose(self) -> None: ...


class BackendFactory(Protocol):
    def __call__(self, config: BackendConfig) -> Backend: ...


BACKENDS: Registry[BackendFactory] = Registry("backend")
