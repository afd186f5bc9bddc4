"""The records every layer shares: what is asked of a model, what it answered, what the store holds.

They live below every package (see docs/architecture.md) so that the store, the engine, the
instruments and the backends can exchange them without importing one another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

FinishReason = Literal["stop", "length", "loop", "error"]
"""How an answer ended: ``stop`` (the model or a stop string ended it), ``length`` (its cap), ``loop`` (the
loop detector cut it off as it started looping: see :class:`StreamStop`), ``error`` (no answer)."""
TokenSource = Literal["stream-chunks", "server-usage", "server-tokenize", "tokenizer", "embedded-tokens",
                      "text-floor"]
"""Where a count came from: ``server-usage`` (the server's own count, streamed or not) and ``tokenizer`` /
``embedded-tokens`` (the model's own tokens, in process) are exact; ``server-tokenize`` (each streamed piece
counted by the server's tokenizer endpoint) is exact unless the model spelled a character in more byte tokens
than its tokenizer would; ``stream-chunks`` (one token per streamed piece) is a lower bound; ``text-floor``
(one token per word of the text, where the words outnumber the pieces or the server's own count: a count
below it cannot be true, issue 46) is a lower bound too."""
SERVER_TOKEN_SOURCES: frozenset[str] = frozenset({"stream-chunks", "server-usage", "server-tokenize", "text-floor"})
"""The token sources of answers a server sent over HTTP (ollama, openai, vllm, llamacpp): the answers
whose end the server has to vouch for (:data:`ENDED_BY`)."""
ENDED_BY = "ended_by"
"""The ``Completion.extra`` key (stored with the answer) naming what ended a server's answer: the server's own
finish reason as it sent it (``stop``, ``length``, ``eos``, Ollama's ``done``), or forgegate's own cut
(``forgegate-cap``, ``forgegate-loop``). A server answer without it is not known to be whole (issue 33: a
stream cut by the server looks like a short answer): a resumed run generates it again and rescore marks it."""


class GenerationRequest(BaseModel):
    """One request to a model: everything that changes the answer is here (and in the store)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: str
    max_tokens: int = Field(gt=0)
    seed: int | None = None
    """Sent wherever the backend takes one, and stored with the request: the same server then gives the same answer."""
    temperature: float | None = None
    """None: not sent, the model's own served sampling decides (GLOSS v2's procedure sends only the cap)."""
    top_p: float | None = None
    """None: not sent, as served."""
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


class StreamStop:
    """A stop predicate handed to a backend with one request: ends the stream as soon as ``check`` says so.

    The pipeline builds it (the loop detector, ``forgegate.checks.loop_stop``); ``run/`` and the backends
    only call it, so neither imports an instrument. It is stateful (one per attempt): a backend asks
    :meth:`due` with its token count after each token and, only when due, calls it with the answer so far,
    exactly the text and token texts it would store. Checks come every ``every`` tokens, and once an answer
    is long, every ``1/spread`` of its length, so a full check on the whole answer costs O(n log n) over a
    stream rather than O(n^2); a loop is then caught at most ``max(every, n/spread)`` tokens after it
    became detectable.
    """

    def __init__(self, check: Callable[[str, Sequence[str] | None], bool], *, every: int = 4,
                 spread: int = 16) -> None:
        if every < 1 or spread < 1:
            raise ValueError("every and spread must be at least 1")
        self._check = check
        self.every = every
        self.spread = spread
        self._last = 0
        self.checks = 0
        """How many times the check ran (the benchmark and tests read it)."""

    def due(self, tokens: int) -> bool:
        """Whether an answer of ``tokens`` tokens should be checked now (a True counts as checked)."""
        if tokens - self._last < max(self.every, self._last // self.spread):
            return False
        self._last = tokens
        return True

    def __call__(self, text: str, tokens: Sequence[str] | None) -> bool:
        """Check the answer so far: True ends the stream (the answer is stored as it stands, finish ``loop``)."""
        self.checks += 1
        return self._check(text, tokens)

    def confirms(self, text: str, tokens: Sequence[str] | None) -> bool:
        """Whether the check holds on the answer as stored (the engine's last look at a ``loop`` answer)."""
        return self._check(text, tokens)

    def fresh(self) -> StreamStop:
        """The same predicate with no state (a retried attempt starts over)."""
        return StreamStop(self._check, every=self.every, spread=self.spread)


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
    extra: dict[str, str] = field(default_factory=dict)
    """The backend's notes on the answer (``Completion.extra``); empty in a store from before the column."""

    @property
    def ok(self) -> bool:
        return self.finish != "error"

    @property
    def unconfirmed(self) -> bool:
        """An answer from a server that the store does not show the server finished (no :data:`ENDED_BY`):
        possibly a stream the server cut, so never trusted as whole. forgegate's loop cut-off is its own end."""
        return (self.ok and self.token_source in SERVER_TOKEN_SOURCES and ENDED_BY not in self.extra
                and self.finish != "loop")

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
            extra=dict(self.extra),
            prompt_tokens=self.prompt_tokens,
        )
