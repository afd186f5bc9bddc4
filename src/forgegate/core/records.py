"""The records every layer shares: what is asked of a model, what it answered, what the store holds.

They live below every package (see docs/architecture.md) so that the store, the engine, the
instruments and the backends can exchange them without importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

FinishReason = Literal["stop", "length", "error"]
TokenSource = Literal["stream-chunks", "server-usage", "server-tokenize", "tokenizer", "embedded-tokens"]
"""Where a count came from: ``server-usage`` (the server's own count, streamed or not) and ``tokenizer`` /
``embedded-tokens`` (the model's own tokens, in process) are exact; ``server-tokenize`` (each streamed piece
counted by the server's tokenizer endpoint) is exact unless the model spelled a character in more byte tokens
than its tokenizer would; ``stream-chunks`` (one token per streamed piece) is a lower bound."""


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
    token_boundaries: bool = False
    """Scoring needs where each token ends (a ``within_tokens`` window). Backends that know them
    anyway ignore it; one that must pay for them (log-probabilities on a non-streamed answer)
    pays only when it is set. It does not change the answer."""

    @model_serializer(mode="wrap")
    def _omit_unset_boundaries(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """Leave ``token_boundaries`` out while it is False, so a request without it is stored exactly as
        before the field existed (and an old row reads back as the same request)."""
        dumped: dict[str, object] = handler(self)
        if not self.token_boundaries:
            dumped.pop("token_boundaries", None)
        return dumped


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


@dataclass(frozen=True)
class StoredResponse:
    """One request's current outcome, as the run store holds it (an answer or an error)."""

    request_key: str
    arm: str
    item_id: str
    seed: int | None
    request: GenerationRequest
    response: str | None
    tokens: int | None
    token_source: str | None
    token_texts: tuple[str, ...] | None
    finish: str
    latency_s: float | None
    ttft_s: float | None
    model_digest: str | None
    endpoint: str | None
    error: str | None
    attempts: int
    prompt_tokens: int | None = None
    """Input tokens as the backend reported them (None: not reported, or a store from before the column)."""
    finished_at: float | None = None
    """Unix time (sub-second) the outcome was recorded; None in a store from before the column."""

    @property
    def ok(self) -> bool:
        return self.finish != "error"

    def completion(self) -> Completion:
        """The stored answer as a Completion (only for rows that did not error)."""
        if not self.ok or self.response is None:
            raise ValueError(f"{self.request_key} has no completion: {self.error}")
        return Completion(
            text=self.response,
            tokens=self.tokens or 0,
            token_source=self.token_source,  # type: ignore[arg-type]
            finish=self.finish,  # type: ignore[arg-type]
            latency_s=self.latency_s or 0.0,
            ttft_s=self.ttft_s,
            token_texts=self.token_texts,
            model_digest=self.model_digest,
            endpoint=self.endpoint,
            prompt_tokens=self.prompt_tokens,
        )
