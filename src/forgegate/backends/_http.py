"""Shared HTTP plumbing for server backends: clients, replicas, stream parsing, the client-side cap.

The Ollama and OpenAI-compatible backends differ only in their request bodies and
in how one stream line becomes a :class:`StreamEvent`; everything else (timeouts,
spreading requests over replicas, NDJSON / SSE framing, the hard token cap, and
mapping failures to transient / permanent :class:`BackendError`) lives here once.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import os
import ssl
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from functools import cache
from typing import Any

from forgegate.backends._body import Body, BodyProblem, parse_body, read_prefix, request_whole
from forgegate.backends._endpoints import EndpointPool, Slot
from forgegate.backends._httpx import httpx
from forgegate.backends.base import BackendError
from forgegate.core.limits import DEFAULT_TIMEOUT_S, MAX_STREAM_LINE_BYTES
from forgegate.core.records import ENDED_BY, Completion, FinishReason, GenerationRequest, StreamStop, TokenSource
from forgegate.jsonio import JsonProblem, parse_json_strict

TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
"""4xx statuses that mean "try again later" rather than "your request is wrong"."""
__all__ = ["EndpointPool", "Slot"]  # they lived here first; the backends import them from here

FAILED_FINISHES = frozenset({"abort", "error"})
"""Finish reasons that say the server gave up on the answer (vLLM's ``abort`` for an aborted request, and
``error``): a failed request, never an answer."""
DISAGREEMENT = "token_count_disagreement"
"""``Completion.extra`` key: the server's token count contradicted its stream (fewer tokens than text pieces),
and which count was used: one per piece, the count that cannot under-count."""
CAP_CUT = "forgegate-cap"
LOOP_CUT = "forgegate-loop"
""":data:`ENDED_BY` values for answers forgegate itself ended: the client-side cap and the loop cut-off."""


class CutStream(BackendError):
    """A stream that ended without the server saying it finished the answer (issue 33): ``[DONE]`` or the end
    of the body with no finish reason, a connection closed mid-answer. Transient: the request is retried, and
    a server that cuts streams while several are in flight gets fewer at once (``EndpointPool.lower``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=True)

_BODY_SNIPPET = 300


class _CAOnFirstHandshake(ssl.SSLContext):
    """A verifying client context that reads its CA bundle just before its first TLS handshake.

    Exactly what ``httpx.create_ssl_context()`` builds (``ssl.create_default_context`` on ``SSL_CERT_FILE``,
    else ``SSL_CERT_DIR``, else certifi's bundle), but reading the bundle is most of a tenth of a stored
    one-item eval's CPU (issue 45) and an ``http://`` server never handshakes: the bundle is read by the
    first ``wrap_bio`` (asyncio, anyio) or ``wrap_socket``, before any certificate is checked."""

    _lock = threading.Lock()
    _cas_read = False

    def read_cas(self) -> None:
        with self._lock:
            if not self._cas_read:
                self.load_verify_locations(**_ca_locations())
                self._cas_read = True

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self.read_cas()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self.read_cas()
        return super().wrap_bio(*args, **kwargs)


def _ca_locations() -> dict[str, str]:
    """Where ``httpx.create_ssl_context()`` reads the CAs for ``verify=True`` (its trust_env order)."""
    if os.environ.get("SSL_CERT_FILE"):
        return {"cafile": os.environ["SSL_CERT_FILE"]}
    if os.environ.get("SSL_CERT_DIR"):
        return {"capath": os.environ["SSL_CERT_DIR"]}
    import certifi

    return {"cafile": certifi.where()}


@cache
def tls_context() -> ssl.SSLContext:
    """The process's one verifying TLS context (what httpx builds for ``verify=True``, SSL_CERT_FILE honoured).

    Every client used to build its own: loading the CA bundle is tens of milliseconds, paid twice by each eval (the
    server probe, then the backend), a tenth of a stored one-item eval (issue 45). Contexts are safe to share, and
    this one reads its bundle at its first handshake (none for an ``http://`` server)."""
    context = _CAOnFirstHandshake(ssl.PROTOCOL_TLS_CLIENT)
    context.verify_mode = ssl.CERT_REQUIRED  # as ssl.create_default_context sets them
    context.check_hostname = True
    keylog = os.environ.get("SSLKEYLOGFILE")
    if keylog and not sys.flags.ignore_environment:
        context.keylog_filename = keylog
    return context


def make_client(idle_s: float, headers: Mapping[str, str] | None = None) -> httpx.AsyncClient:
    """The one way a backend builds its client: ``idle_s`` bounds connect, each read and each write.

    This is the idle timeout: the longest silence on the connection, the wait for the
    first byte included. The whole-request deadline is ``stream_at``'s ``deadline_s``.
    """
    timeout = httpx.Timeout(idle_s, connect=min(idle_s, 30.0))
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
    return httpx.AsyncClient(timeout=timeout, limits=limits, headers=dict(headers or {}), verify=tls_context())


class Redactor:
    """Removes secrets (an API key) from any text that may reach an error, a log or the store."""

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        self._secrets = tuple(s for s in secrets if s)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text


def join_url(base: str, path: str) -> str:
    return base.rstrip("/") + "/" + path.lstrip("/")


def chat_messages(request: GenerationRequest) -> list[dict[str, str]] | None:
    """The messages to send for a chat request; None for a raw one (the prompt goes as it is).

    An empty prompt is sent as chat too: a raw request with nothing to continue gives a
    server nothing to do (real Ollama answers it by loading the model and no text). A
    system prompt needs a chat request: on a raw one it is a permanent BackendError.
    """
    if request.chat or request.prompt == "":
        messages = [{"role": "system", "content": request.system}] if request.system is not None else []
        messages.append({"role": "user", "content": request.prompt})
        return messages
    if request.system is not None:
        raise BackendError("a system prompt needs a chat request (chat=True)", transient=False)
    return None


@dataclass(frozen=True)
class StreamEvent:
    """One parsed stream line: a token's text, a finish (the server says the answer is whole; ``finish``
    is its reason, None when it gives none, as older Ollama), a usage count, or the end marker."""

    token: str | None = None
    finish: str | None = None
    usage_tokens: int | None = None
    prompt_tokens: int | None = None
    done: bool = False
    finished: bool = False
    """The server says the answer is whole without a reason (implied by a ``finish``)."""

    @classmethod
    def finishing(cls, reason: str | None, **fields: Any) -> StreamEvent:
        return cls(finish=reason, finished=True, **fields)


@dataclass
class Collected:
    """What a capped read of a stream gathered."""

    token_texts: list[str] = field(default_factory=list)
    server_finish: str | None = None
    finished: bool = False
    """The server said the answer is whole (a finish reason, Ollama's ``done: true``)."""
    usage_tokens: int | None = None
    prompt_tokens: int | None = None
    capped: bool = False
    ended: bool = False
    looped: bool = False
    """The stop predicate (the loop cut-off) ended the read: the answer is ``token_texts`` as they stand."""
    ttft_s: float | None = None

    @property
    def text(self) -> str:
        return "".join(self.token_texts)

    @property
    def ended_by(self) -> str:
        """What ended the answer (:data:`ENDED_BY`): forgegate's cap or loop cut-off, else the server."""
        if self.capped:
            return CAP_CUT
        if self.looped:
            return LOOP_CUT
        return self.server_finish or "done"

    def require_finished(self, url: str, finish_word: str = "a finish reason") -> None:
        """Raise :class:`CutStream` unless the server said it finished this answer or forgegate ended it itself.

        The one rule for every streaming backend: ``[DONE]``, the end of the body or a closed
        connection without a finish is a cut stream, whatever text came before it, never a (short) answer.
        """
        if self.capped or self.looped or self.finished:
            return
        how = "sent its end marker" if self.ended else "ended"
        raise CutStream(f"the stream from {url} {how} after {len(self.token_texts)} text piece(s) without "
                        f"{finish_word}: a cut stream, not an answer")


async def collect_capped(events: AsyncIterator[StreamEvent], max_tokens: int, started: float,
                         stop: StreamStop | None = None) -> Collected:
    """Read token events until the stream ends, a token past ``max_tokens`` arrives or ``stop`` fires.

    The hard cap: the token that would be number ``max_tokens + 1`` is dropped and
    reading stops (the caller closes the stream). Reading continues past exactly
    ``max_tokens`` tokens only for non-token events, so a server that stops right
    at the cap still reports its own finish reason and usage. ``stop`` (the loop cut-off) sees the
    chunks so far as the answer's tokens, exactly what is kept when it fires (``looped``; the caller
    closes the stream, so the server stops generating).
    """
    got = Collected()
    async for event in events:
        if got.ended:
            raise BackendError(f"the stream went on after its end: {event!r:.120}", transient=True)
        if event.token is not None:
            if got.finished:
                raise BackendError(f"the stream went on after the server finished the answer: {event.token!r:.80}",
                                   transient=True)
            if len(got.token_texts) >= max_tokens:
                got.capped = True
                break
            if got.ttft_s is None:
                got.ttft_s = time.perf_counter() - started
            got.token_texts.append(event.token)
            if (stop is not None and len(got.token_texts) < max_tokens and stop.due(len(got.token_texts))
                    and stop(got.text, got.token_texts)):
                got.looped = True
                break
        if event.finished or event.finish is not None:
            if got.finished:
                raise BackendError(f"the server finished the answer twice ({got.server_finish!r}, then "
                                   f"{event.finish!r})", transient=True)
            if event.finish in FAILED_FINISHES:
                raise BackendError(f"the server ended the answer with finish reason '{event.finish}' (it gave "
                                   "up on it): a failed request, not an answer", transient=True)
            got.finished, got.server_finish = True, event.finish
        if event.usage_tokens is not None:
            got.usage_tokens = event.usage_tokens
        if event.prompt_tokens is not None:
            got.prompt_tokens = event.prompt_tokens
        if event.done:
            got.ended = True  # read on to the end of the body: nothing may follow the end (one choice, one end)
    return got


@dataclass(frozen=True)
class Streamed:
    """A finished capped read: what it gathered, the replica that answered, the URL, the start time."""

    got: Collected
    endpoint: str
    url: str
    started: float


async def stream_at(
    client: httpx.AsyncClient,
    base: str,
    path: str,
    body: dict[str, Any],
    redact: Redactor,
    events: Callable[[httpx.Response], AsyncIterator[StreamEvent]],
    max_tokens: int,
    deadline_s: float | None = None,
    stop: StreamStop | None = None,
    finish_word: str = "a finish_reason",
    check: Callable[[httpx.Response, str], None] | None = None,
) -> Streamed:
    """POST ``body`` to ``path`` under ``base`` (a replica from ``EndpointPool.acquire``) and read the streamed
    answer under the hard cap.

    ``events`` turns the response into :class:`StreamEvent` s (the one part that differs
    between server APIs); failures become transient / permanent :class:`BackendError` s.
    ``deadline_s`` bounds the whole request, connect to last byte: a server that keeps a
    stream open without finishing it (a chunk now and then, no answer) misses it, and that
    is a transient error (retried, then recorded as an error), never a model's answer. ``stop``: see
    :func:`collect_capped` (leaving the block closes the response, and so the server's generation). A stream
    the server did not say it finished (``finish_word``, the API's name for that) is a :class:`CutStream`.
    ``check`` looks at the response before it is read (:func:`require_event_stream`).
    """
    url = join_url(base, path)
    started = time.perf_counter()
    try:
        async with asyncio.timeout(deadline_s):
            posting = client.stream("POST", url, json=body)
            async with http_errors(url, redact), posting as response:
                await raise_for_status(response, redact)
                if check is not None:
                    check(response, redact(url))
                got = await collect_capped(events(response), max_tokens, started, stop)
    except TimeoutError:
        raise _missed_deadline(url, deadline_s, redact) from None
    got.require_finished(url, finish_word)
    return Streamed(got, base, url, started)


async def post_whole(
    client: httpx.AsyncClient, base: str, path: str, body: dict[str, Any], redact: Redactor, deadline_s: float
) -> tuple[dict[str, Any], str, float]:
    """POST ``body`` to ``path`` under ``base`` and read one JSON answer: (the object, the URL, the start time).

    A non-streamed answer is silent until it is whole, so the idle timeout cannot apply to it: the
    whole-request deadline bounds the wait instead (reads are not timed on their own). The answer is read by
    the one bounded reader (``_body``): more than ``MAX_SERVER_BODY_BYTES`` is a transient error (retried, then
    INCOMPLETE), never held whole (20 MB took 2 GB of memory).
    """
    url = join_url(base, path)
    started = time.perf_counter()
    timeout = httpx.Timeout(None, connect=client.timeout.connect)
    try:
        async with http_errors(url, redact):
            answer = await request_whole(client, "POST", url, deadline_s=deadline_s, json_body=body, timeout=timeout)
    except BodyProblem as exc:
        if exc.late:
            raise _missed_deadline(url, deadline_s, redact) from None
        raise BackendError(redact(exc.message), transient=True) from None
    body_status(answer, redact)
    try:
        obj = parse_body(answer.raw, url)
    except BodyProblem as exc:
        raise BackendError(redact(f"malformed answer: {exc.message}"), transient=True) from None
    if not isinstance(obj, dict):
        raise BackendError(f"the answer from {url} is not a JSON object: {answer.text[:_BODY_SNIPPET]!r}",
                           transient=True)
    return obj, url, started


def _missed_deadline(url: str, deadline_s: float | None, redact: Redactor) -> BackendError:
    return BackendError(redact(f"no complete answer from {url} within the {deadline_s:g} s deadline (--timeout)"),
                        transient=True)


async def get_checked(client: httpx.AsyncClient, url: str, redact: Redactor,
                      deadline_s: float = DEFAULT_TIMEOUT_S) -> Body:
    """GET ``url`` through the one bounded reader (size, time; ``Body.json`` bounds the depth); transport
    failures, error statuses and a body past a bound are BackendErrors as for a stream."""
    try:
        async with http_errors(url, redact):
            answer = await request_whole(client, "GET", url, deadline_s=deadline_s)
    except BodyProblem as exc:
        raise BackendError(redact(exc.message), transient=True) from None
    body_status(answer, redact)
    return answer


def body_status(answer: Body, redact: Redactor) -> None:
    """:func:`raise_for_status` for a whole answer read by ``_body``."""
    if answer.status_code >= 400:
        transient = answer.status_code >= 500 or answer.status_code in TRANSIENT_STATUS
        raise BackendError(redact(f"HTTP {answer.status_code} from {answer.url}: {answer.text[:_BODY_SNIPPET]}"),
                           transient=transient)


async def iter_ndjson(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """Newline-delimited JSON objects (Ollama's stream), split on the byte ``\n`` only.

    Not ``aiter_lines``: it splits on every line break ``str.splitlines`` knows (U+2028, U+2029, U+0085, ...),
    which JSON allows unescaped inside a string, so a token holding one broke its line in two and the answer was
    never stored. A line longer than ``MAX_STREAM_LINE_BYTES`` (a server that never sends its newline) is a
    transient fault, not a line held until memory runs out.
    """
    pending = b""
    async for chunk in response.aiter_bytes():
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        _check_line_length(len(pending), response)
        for raw in lines:
            if raw.strip():
                yield load_object(raw.decode("utf-8", "replace"))
    if pending.strip():
        yield load_object(pending.decode("utf-8", "replace"))


def _check_line_length(size: int, response: httpx.Response) -> None:
    if size > MAX_STREAM_LINE_BYTES:
        raise BackendError(f"a stream line from {response.request.url} ran past {MAX_STREAM_LINE_BYTES:,} bytes "
                           "without a newline: not a stream of answer chunks", transient=True)


async def iter_sse_data(response: httpx.Response) -> AsyncIterator[str]:
    """The ``data:`` payloads of a server-sent-events stream, one per event (multi-line data joined).

    Lines are split on the bytes the SSE format names (``\\r\\n``, ``\\n``, ``\\r``) and decoded as UTF-8 one
    whole line at a time. Not ``aiter_lines``: its text layers cost a generator step and a decoder call per
    chunk on every streamed token (client CPU a streamed answer pays for), and it also splits on the other characters
    ``str.splitlines`` knows (U+2028 ...), which may stand unescaped inside a JSON string. A byte-order mark
    before the first line is dropped, as the SSE format's decoder drops it (issue 46: kept, it hid the first
    event's field name and so the answer's first words). A line that arrives in many chunks is gathered, not
    split again on each one (issue 46: quadratic in the line's length).
    """
    data: list[str] = []
    pending = bytearray()
    head = True
    async for chunk in _body_chunks(response):
        if head:  # the BOM may itself arrive over several chunks
            pending += chunk
            if len(pending) < len(_BOM) and _BOM.startswith(bytes(pending)):
                continue
            head = False
            chunk = bytes(pending[len(_BOM):] if pending.startswith(_BOM) else pending)
            pending.clear()
        if b"\n" not in chunk and b"\r" not in chunk:
            pending += chunk
            _check_line_length(len(pending), response)
            continue
        lines = (bytes(pending) + chunk).splitlines(keepends=True)
        pending.clear()
        # the last piece waits for the next chunk unless it ends in \n: unfinished, or a \r whose \n may follow
        if not lines[-1].endswith(b"\n"):
            pending += lines.pop()
            _check_line_length(len(pending), response)
        for raw in lines:
            payload = _sse_line(raw.rstrip(b"\r\n"), data)
            if payload is not None:
                yield payload
    for raw in bytes(pending).splitlines() if not head else ():
        payload = _sse_line(raw, data)
        if payload is not None:
            yield payload
    if data:
        yield "\n".join(data)


_BOM = codecs.BOM_UTF8


def _body_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body's bytes as they arrive: the raw chunks when the server sent them unencoded (the usual SSE
    stream), which skips httpx's pass-through decoder and re-chunker, one layer less on every streamed token
    (issue 33's client CPU, about 3% of a streamed answer's); decoded (gzip, ...) otherwise, and a body already
    read in whole from where httpx holds it."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    raw = encoding in ("", "identity") and not response.is_stream_consumed
    return response.aiter_raw() if raw else response.aiter_bytes()


def _sse_line(raw: bytes, data: list[str]) -> str | None:
    """Take one SSE line into ``data``; an empty line ends the event: its joined payload (None when there is none)."""
    if not raw:
        if not data:
            return None
        payload = "\n".join(data)
        data.clear()
        return payload
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:  # replaced, the stored answer would not be the text the server sent
        raise BackendError(f"stream line that is not UTF-8: {raw[:_BODY_SNIPPET]!r}", transient=True) from None
    if line.startswith(":"):
        return None
    name, _, value = line.partition(":")
    if name == "data":
        data.append(value[1:] if value.startswith(" ") else value)
    return None


def count_field(obj: dict[str, Any], key: str, where: str) -> int | None:
    """A token count a server sent (``usage.completion_tokens``, ``eval_count``): None when absent or null,
    else a non-negative integer; anything else (``true``, ``"5"``, ``-3``, ``2.0``) is a backend error, never
    coerced."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BackendError(f"{where} '{key}' is not a token count: {value!r:.80}", transient=True)
    return value


def typed(value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    """``value`` when it is None or of ``kind``; otherwise a (transient) backend error naming the field: stream
    fields are read strictly, never coerced."""
    if value is not None and not isinstance(value, kind):
        raise BackendError(f"stream line with {what} of the wrong type: {value!r:.120}", transient=True)
    return value


def load_object(text: str) -> dict[str, Any]:
    """Parse one JSON object from a stream line (a bad line is a transient stream fault).

    The project's strict reader: a line nested 100,000 deep or with a 5,000-digit number is a malformed
    line too (retried, then INCOMPLETE), never a RecursionError that ends the eval.
    """
    try:
        obj = parse_json_strict(text)
    except (json.JSONDecodeError, JsonProblem) as exc:
        raise BackendError(f"malformed stream line: {text[:_BODY_SNIPPET]!r}", transient=True) from exc
    if not isinstance(obj, dict):
        raise BackendError(f"stream line is not a JSON object: {text[:_BODY_SNIPPET]!r}", transient=True)
    return obj


async def raise_for_status(response: httpx.Response, redact: Redactor) -> None:
    """Turn an error status into a BackendError: 5xx and 408/409/425/429 transient, other 4xx permanent."""
    if response.status_code < 400:
        return
    body = (await read_prefix(response)).decode("utf-8", "replace")  # a message: bounded, never read whole
    transient = response.status_code >= 500 or response.status_code in TRANSIENT_STATUS
    message = f"HTTP {response.status_code} from {response.request.url}: {body[:_BODY_SNIPPET]}"
    raise BackendError(redact(message), transient=transient, status=response.status_code,
                       retry_after_s=retry_after(response.headers.get("retry-after")))


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delta-seconds or an HTTP date); None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def require_event_stream(response: httpx.Response, url: str) -> None:
    """A 200 answer to a streamed request whose Content-Type says it is no event stream (a JSON object, an HTML
    page) is a failed request that says what came, not a "cut stream" (issue 46); permanent: the same request
    gets the same kind of answer. A server that names no type is read as a stream."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind and kind != "text/event-stream":
        raise BackendError(f"{url} answered a streamed request with HTTP {response.status_code} and Content-Type "
                           f"'{kind}', not an event stream (text/event-stream): is it an OpenAI-compatible server "
                           "that streams?", transient=False)


@asynccontextmanager
async def http_errors(url: str, redact: Redactor) -> AsyncIterator[None]:
    """Map httpx failures (connect, timeout, a connection dropped mid-stream) to transient errors."""
    try:
        yield
    except httpx.TimeoutException as exc:
        raise BackendError(redact(f"{url} went silent past the idle timeout (--idle-timeout): {type(exc).__name__}"),
                           transient=True) from None
    except httpx.TransportError as exc:
        raise BackendError(redact(f"connection to {url} failed: {type(exc).__name__}: {exc}"), transient=True) from None


def floor_source(floor: int, pieces: int) -> TokenSource:
    """The label of a lower-bound count: one token per streamed piece, or per word where the words are more."""
    return "stream-chunks" if floor == pieces else "text-floor"


def cut_to_cap(got: Collected, tokens: int, texts: tuple[str, ...] | None, max_tokens: int, url: str,
               extra: dict[str, str]) -> tuple[int, tuple[str, ...] | None]:
    """The client-side cap in tokens, whatever the chunking (issue 46: a cap on pieces let a server that sent
    several tokens a piece have its whole text scored): an answer of ``tokens`` past ``max_tokens`` is cut at
    the cap where ``texts`` (one per token) place it; without them there is no honest place to cut, and the
    answer is a failed request (permanent: the server ignored the cap), never scored whole."""
    if tokens <= max_tokens:
        return tokens, texts
    extra["server_exceeded_cap"] = "true"
    if texts is None or len(texts) != tokens:
        raise BackendError(f"{url} sent {tokens} tokens (at least) for a cap of {max_tokens} (it ignored the cap) "
                           "and its stream gives no token boundaries to cut the answer at: not an answer forgegate "
                           "can score", transient=False)
    kept = texts[:max_tokens]
    got.token_texts, got.capped = list(kept), True
    return max_tokens, kept


def build_completion(
    got: Collected,
    *,
    finish: FinishReason,
    tokens: int,
    token_source: TokenSource,
    started: float,
    model_digest: str | None,
    endpoint: str | None,
    token_texts: tuple[str, ...] | None,
    extra: dict[str, str] | None = None,
) -> Completion:
    return Completion(
        text=got.text,
        tokens=tokens,
        token_source=token_source,
        finish=finish,
        latency_s=time.perf_counter() - started,
        ttft_s=got.ttft_s,
        token_texts=token_texts,
        model_digest=model_digest,
        endpoint=endpoint,
        extra={**(extra or {}), ENDED_BY: got.ended_by},
        prompt_tokens=got.prompt_tokens,
    )
