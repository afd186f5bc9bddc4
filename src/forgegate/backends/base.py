"""The one Backend protocol every model server speaks, and the values it exchanges.

A backend only generates: it never scores. It must honour ``max_tokens`` on the
client side (stop reading the stream at the cap, whatever the server does) and
say where its token count came from.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from forgegate.core.records import Completion, GenerationRequest
from forgegate.registry import Registry

__all__ = ["BACKENDS", "Backend", "BackendConfig", "BackendError", "BackendFactory"]


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
