"""Ollama's native API (``/api/generate``, ``/api/chat``, ``/api/tags``), streamed about one token per chunk.

Follows https://github.com/ollama/ollama/blob/main/docs/api.md: NDJSON chunks
``{"response"|"message": ..., "done": false}`` then a final ``{"done": true,
"done_reason": ...}``. Chat requests, and every request with an empty prompt (real
Ollama answers an empty ``prompt`` on ``/api/generate`` by loading the model and
returning no text), go to ``/api/chat``; raw requests go to ``/api/generate`` with
``raw: true`` (no chat template). The model digest comes from ``/api/tags``. Token counts: the
final chunk's ``eval_count`` (``server-usage``, exact) unless the client cap cut the stream;
chunks are the token boundaries when their number agrees with it (a character spelled in
several tokens can arrive as one chunk), else there are none. Without ``eval_count``, one
token per chunk (``stream-chunks``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from ipaddress import ip_address
from typing import Any, ClassVar

from forgegate.backends._http import (
    DISAGREEMENT,
    Collected,
    EndpointPool,
    Redactor,
    StreamEvent,
    build_completion,
    chat_messages,
    count_field,
    cut_to_cap,
    floor_source,
    get_checked,
    iter_ndjson,
    join_url,
    load_object,
    make_client,
    post_whole,
    stream_at,
    typed,
)
from forgegate.backends._httpx import httpx
from forgegate.backends._tokencount import token_floor
from forgegate.backends.base import BACKENDS, BackendConfig, BackendError
from forgegate.backends.names import AdapterKind
from forgegate.backends.served_sampling import ServedValue, merged, parse_ollama_parameters
from forgegate.core.credentials import url_secrets
from forgegate.core.records import Completion, FinishReason, GenerationRequest, StreamStop, TokenSource
from forgegate.errors import UsageError

DEFAULT_HOST = "http://127.0.0.1:11434"


def parse_ollama_host(value: str) -> str:
    """Read ``OLLAMA_HOST`` as Ollama does: scheme optional (http), port optional.

    The default port is 11434, or 80 / 443 when the value names the scheme.
    """
    value = value.strip()
    if not value:
        return DEFAULT_HOST
    scheme, sep, rest = value.partition("://")
    default_port = "11434"
    if not sep:
        scheme, rest = "http", value
    elif scheme == "http":
        default_port = "80"
    elif scheme == "https":
        default_port = "443"
    hostport, _, path = rest.partition("/")
    host, port = _split_host_port(hostport)
    host = host or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        port = default_port
    if ":" in host:
        host = f"[{host}]"
    base = f"{scheme}://{host}:{port}"
    return f"{base}/{path}".rstrip("/") if path else base


def _split_host_port(hostport: str) -> tuple[str, str]:
    if hostport.startswith("["):
        host, _, tail = hostport[1:].partition("]")
        return host, tail[1:] if tail.startswith(":") else ""
    try:
        ip_address(hostport)
        return hostport, ""  # a bare IPv6 address has colons but no port
    except ValueError:
        pass
    host, sep, port = hostport.rpartition(":")
    return (host, port) if sep else (hostport, "")


def normalise_model_name(name: str) -> str:
    """Ollama's tag rule: a name without a tag means ``:latest`` (``gloss`` == ``gloss:latest``)."""
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last else f"{name}:latest"


@BACKENDS.register("ollama")
class OllamaBackend:
    """A model served by Ollama; counts from its ``eval_count``, boundaries from its chunks."""

    name = "ollama"
    remote: ClassVar[bool] = True
    """Capability (``backends.names.is_remote``): a server forgegate does not start: --model labels the result."""
    adapter: ClassVar[AdapterKind | None] = None
    """Capability (``backends.names.adapter_kind``): the adapter it loads itself:
    none: it cannot load one."""
    options: ClassVar[tuple[str, ...]] = ()
    """Capability (``backends.options``): the per-arm options it uses beyond model, adapter and base URLs."""

    def __init__(self, config: BackendConfig) -> None:
        if not config.model:
            raise UsageError("the ollama backend needs a model name (e.g. --model gloss:v10)")
        self.config = config
        self.model: str = config.model
        urls = config.base_urls or (parse_ollama_host(os.environ.get("OLLAMA_HOST", "")),)
        self._pool = EndpointPool(tuple(u.rstrip("/") for u in urls))
        self._client = make_client(config.idle_s)
        self._redact = Redactor(tuple(s for u in urls for s in url_secrets(u)))
        self._digest: str | None = None
        self._digest_known = False
        self._digest_lock = asyncio.Lock()

    async def model_digest(self) -> str | None:
        """The ``digest`` /api/tags reports for this model; every replica must report the same one.

        An Ollama-compatible server that lists the model without a digest serves it (as the endpoint probe
        says too): the digest is None, as for an OpenAI-compatible server, and the run is known by the model's
        name alone (docs/project/security.md says what that costs: a resume cannot see new weights).
        """
        async with self._digest_lock:
            if self._digest_known:
                return self._digest
            digests = {url: await self._tags_digest(url) for url in self._pool.urls}
            if len(set(digests.values())) > 1:
                raise BackendError(f"replicas serve different builds of {self.model}: {digests}", transient=False)
            self._digest, self._digest_known = next(iter(digests.values())), True
            return self._digest

    async def _tags_digest(self, base: str) -> str | None:
        url = join_url(base, "/api/tags")
        response = await get_checked(self._client, url, self._redact, self.config.timeout_s)
        models = _tag_entries(url, response.text)
        wanted = normalise_model_name(self.model)
        for entry in models:
            name = entry.get("name") or entry.get("model") or ""
            if isinstance(name, str) and normalise_model_name(name) == wanted:
                digest = entry.get("digest")
                return str(digest) if digest else None
        known = ", ".join(str(m.get("name")) for m in models) or "none"
        raise BackendError(
            f"model '{self.model}' not found on {base} (models there: {known}); run `ollama pull {self.model}`",
            transient=False,
        )

    async def served_sampling(self) -> dict[str, ServedValue]:
        """The model's own parameters (its Modelfile's), from ``/api/show``; Ollama's defaults apply to the rest."""
        answer, _, _ = await post_whole(self._client, self._pool.urls[0], "/api/show", {"model": self.model},
                                        self._redact, self.config.timeout_s)
        parameters = answer.get("parameters")
        values = parse_ollama_parameters(parameters) if isinstance(parameters, str) else {}
        return merged("ollama /api/show parameters", values,
                      "settings not listed are Ollama's own defaults for this model")

    def _body(self, request: GenerationRequest) -> tuple[str, dict[str, Any]]:
        options: dict[str, Any] = {"num_predict": request.max_tokens}  # GLOSS v2's procedure sends only this
        if request.temperature is not None:
            options["temperature"] = request.temperature
        if request.top_p is not None:
            options["top_p"] = request.top_p
        if request.seed is not None:
            options["seed"] = request.seed
        if request.stop:
            options["stop"] = list(request.stop)
        body: dict[str, Any] = {"model": self.model, "stream": True, "options": options}
        messages = chat_messages(request)
        if messages is not None:
            body["messages"] = messages
            return "/api/chat", body
        body.update(prompt=request.prompt, raw=True)
        return "/api/generate", body

    async def generate(self, request: GenerationRequest, stop: StreamStop | None = None) -> Completion:
        digest = await self.model_digest()
        path, body = self._body(request)
        with self._pool.acquire() as base:
            streamed = await stream_at(self._client, base, path, body, self._redact, _events, request.max_tokens,
                                       deadline_s=self.config.timeout_s, stop=stop, finish_word="done: true")
        got = streamed.got  # stream_at raised CutStream unless it ended with done: true (or forgegate cut it)
        tokens, source, texts = _count(got)
        extra = {"server_done_reason": got.server_finish} if got.server_finish else {}
        if got.usage_tokens is not None:
            extra["server_eval_count"] = str(got.usage_tokens)
        if not got.capped and not got.looped and got.usage_tokens is not None and got.usage_tokens < tokens:
            extra[DISAGREEMENT] = (f"eval_count {got.usage_tokens} for {len(got.token_texts)} text chunks holding "
                                   f"{token_floor(got.text)} words; counted {tokens}, one per chunk or word")
        tokens, texts = cut_to_cap(got, tokens, texts, request.max_tokens, streamed.url, extra)
        finish = "loop" if got.looped and not got.capped else _finish(got.server_finish, got.capped, tokens,
                                                                      request.max_tokens)
        return build_completion(
            got,
            finish=finish,
            tokens=tokens,
            token_source=source,
            started=streamed.started,
            model_digest=digest,
            endpoint=streamed.endpoint,
            token_texts=texts,
            extra=extra,
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def _count(got: Collected) -> tuple[int, TokenSource, tuple[str, ...] | None]:
    """Tokens of the answer: Ollama's final ``eval_count`` (its own count, exact) unless the client cap cut
    the stream (or the loop cut-off closed it) or the text cannot be that short; then, or without one, the
    floor (:func:`token_floor`: one token per chunk that carried text, or per word where the words are more).
    The count may exceed the cap: :func:`cut_to_cap` then cuts at the cap or refuses the answer.

    A chunk with no text is not counted as it arrives (a server that sends empty chunks and never
    finishes would otherwise fill the cap with nothing and look like a model that ran on). The
    chunks are the token boundaries when their number agrees with the count; they do not when
    a character spelled in several tokens arrived as one chunk, or tokens rendered no text (a
    thinking model's hidden tokens).
    """
    chunks = len(got.token_texts)
    floor = token_floor(got.text, chunks)
    if got.capped or got.looped or got.usage_tokens is None or got.usage_tokens < floor:
        return floor, floor_source(floor, chunks), tuple(got.token_texts) if floor == chunks else None
    texts = tuple(got.token_texts) if got.usage_tokens == chunks else None
    return got.usage_tokens, "server-usage", texts


def _finish(server: str | None, capped: bool, tokens: int, max_tokens: int) -> FinishReason:
    if capped or server == "length":
        return "length"
    if server == "stop":
        return "stop"
    if server in ("load", "unload"):
        raise BackendError(f"Ollama answered done_reason '{server}' instead of generating", transient=False)
    # Older Ollama sends no done_reason: a stream that used the whole budget was cut.
    return "length" if tokens >= max_tokens else "stop"


def _tag_entries(url: str, text: str) -> list[dict[str, Any]]:
    """The model entries of an ``/api/tags`` answer; any other shape is a (transient) backend error."""
    try:
        answer = load_object(text)
    except BackendError:
        raise BackendError(f"{url} did not return a JSON object", transient=True) from None
    models = answer.get("models") or []
    if not isinstance(models, list) or not all(isinstance(m, dict) for m in models):
        raise BackendError(f"{url} answered 'models' that is not a list of objects: {text[:200]!r}",
                           transient=True)
    return models


def _chunk_text(obj: dict[str, Any]) -> str | None:
    """The text of one stream line (``response`` of /api/generate, ``message.content`` of /api/chat).

    A line of another shape (``"message": "hi"``, ``"content": 5``) is a malformed answer: a transient
    backend error (retried, then INCOMPLETE), never a crash of the eval.
    """
    text = obj.get("response")
    if text is None:
        message = obj.get("message")
        if message is not None and not isinstance(message, dict):
            raise BackendError(f"Ollama stream line with a 'message' that is not an object: {message!r:.200}",
                               transient=True)
        text = (message or {}).get("content")
    if text is not None and not isinstance(text, str):
        raise BackendError(f"Ollama stream line whose text is not a string: {text!r:.200}", transient=True)
    return text


async def _events(response: httpx.Response) -> AsyncIterator[StreamEvent]:
    """The stream's events, read strictly: ``done`` a boolean (``"false"`` is not false), ``done_reason`` a
    string, counts non-negative integers; any other shape is a transient backend error."""
    async for obj in iter_ndjson(response):
        if "error" in obj:
            raise BackendError(f"Ollama error mid-stream: {obj['error']!r:.300}", transient=True)
        text = _chunk_text(obj)
        done = typed(obj.get("done"), bool, "'done'")
        if text:  # an empty chunk is not a token: see _count
            yield StreamEvent(token=text)
        if done:
            yield StreamEvent.finishing(
                typed(obj.get("done_reason"), str, "'done_reason'"),
                usage_tokens=count_field(obj, "eval_count", "Ollama's final line"),
                prompt_tokens=count_field(obj, "prompt_eval_count", "Ollama's final line"),  # absent: cached prompt
                done=True,
            )
