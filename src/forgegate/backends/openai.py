"""Any OpenAI-compatible server (vLLM, llama.cpp server, TGI, SGLang), streamed over SSE or asked whole.

``/chat/completions`` for chat requests and ``/completions`` for raw ones, under the
base URL the user gives (it includes ``/v1``, as with the OpenAI SDK), with
``stream: true`` and ``stream_options.include_usage``. Token counts, exact first:

1. the stream's ``usage.completion_tokens`` when the server sends it and the client cap did
   not cut the stream (``server-usage``); the deltas are the token boundaries when their
   number agrees with it, else the tokenizer endpoint's when its count agrees, else none;
2. a server whose finished stream carried no usage (llama-cpp-python's ``llama_cpp.server``)
   is asked without streaming from then on, that request included: a non-streamed answer
   always carries ``usage`` (``server-usage``, ``extra["streamed"] == "false"``). The server
   honours ``max_tokens`` (but see :func:`before_finished_character`); the whole-request
   deadline bounds the wait; there is no time to first token. Token boundaries come only for a
   request that needs them (``token_boundaries``): it asks for per-token log-probabilities,
   which cost several times the generation on that server (forgegate.backends._boundaries);
3. when the non-streamed answer has no usage either, streams again, each delta counted by
   the server's tokenizer endpoint (``server-tokenize``), else one token per delta
   (``stream-chunks``, a lower bound when a delta carries several tokens).

Which of these an endpoint gets is found once, from its first finished stream.
The API key is read from an environment variable at construction, sent only in the
``Authorization`` header, and redacted from every error message.
Model digest: ``None``; no OpenAI-compatible server reports a stable content hash
(``/v1/models`` gives only ids, which are names, not digests).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, ClassVar

from forgegate.backends._body import BodyProblem
from forgegate.backends._boundaries import logprob_request, token_texts_of
from forgegate.backends._http import (
    CAP_CUT,
    DISAGREEMENT,
    FAILED_FINISHES,
    Collected,
    CutStream,
    EndpointPool,
    Redactor,
    Slot,
    StreamEvent,
    build_completion,
    chat_messages,
    count_field,
    cut_to_cap,
    floor_source,
    get_checked,
    iter_sse_data,
    join_url,
    load_object,
    make_client,
    post_whole,
    require_event_stream,
    stream_at,
    typed,
)
from forgegate.backends._httpx import httpx
from forgegate.backends._tokencount import ServerTokenizer, token_floor
from forgegate.backends.base import BACKENDS, BackendConfig, BackendError
from forgegate.backends.names import AdapterKind
from forgegate.backends.served_sampling import ServedValue, merged
from forgegate.console import notice
from forgegate.core.credentials import url_secrets
from forgegate.core.records import ENDED_BY, Completion, FinishReason, GenerationRequest, StreamStop, TokenSource
from forgegate.core.sampling import AS_SERVED
from forgegate.errors import UsageError

DEFAULT_KEY_ENV = "OPENAI_API_KEY"


def read_api_key(api_key_env: str | None) -> str | None:
    """The key from the named variable (which must then be set), else from OPENAI_API_KEY if set."""
    if api_key_env is not None:
        key = os.environ.get(api_key_env)
        if not key:
            raise UsageError(f"environment variable {api_key_env} (named for the API key) is not set")
        return key
    return os.environ.get(DEFAULT_KEY_ENV) or None


@dataclass
class _Cuts:
    """An endpoint's streams cut while others were in flight: how many, the most in flight, the first cut."""

    first: str
    count: int = 0
    most_in_flight: int = 0


@BACKENDS.register("openai")
class OpenAIBackend:
    """An OpenAI-compatible server; requests spread over ``base_urls`` replicas, least in flight first."""

    name = "openai"
    remote: ClassVar[bool] = True
    """Capability (``backends.names.is_remote``): a server forgegate does not start: --model labels the result."""
    adapter: ClassVar[AdapterKind | None] = None
    """Capability (``backends.names.adapter_kind``): the adapter it loads itself:
    none: it cannot load one."""
    options: ClassVar[tuple[str, ...]] = ()
    """Capability (``backends.options``): the per-arm options it uses beyond model, adapter and base URLs."""

    def __init__(self, config: BackendConfig) -> None:
        if not config.base_urls:
            raise UsageError("the openai backend needs --base-url (e.g. http://127.0.0.1:8000/v1); there is no default")
        self.config = config
        key = read_api_key(config.api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._redact = Redactor(((key,) if key else ()) + tuple(s for u in config.base_urls for s in url_secrets(u)))
        self._client = make_client(config.idle_s, headers)
        self._pool = EndpointPool(tuple(u.rstrip("/") for u in config.base_urls))
        self._model: str | None = config.model
        self._model_lock = asyncio.Lock()
        self._tokenizer = ServerTokenizer(self._client, self._redact)
        self._cuts: dict[str, _Cuts] = {}
        """Per endpoint that cut streams while others were in flight: what it did."""
        self._unstreamed: dict[str, bool] = {}
        """Per endpoint, once its first stream finished: True when it is asked without streaming
        (its streams carry no usage), False when it streams (with usage, or as the last resort)."""

    async def model_digest(self) -> str | None:
        """Always ``None``: OpenAI-compatible servers report no content digest of the weights."""
        return None

    async def served_sampling(self) -> dict[str, ServedValue]:
        """"As served": the server's own sampling defaults, which the OpenAI API does not report."""
        return merged(AS_SERVED, {}, "the server's own sampling defaults (the OpenAI API does not report them)")

    async def _model_name(self) -> str:
        """``config.model``, or the one model ``/models`` lists (several: the user must choose)."""
        async with self._model_lock:
            if self._model is None:
                url = join_url(self._pool.urls[0], "/models")
                response = await get_checked(self._client, url, self._redact, self.config.timeout_s)
                try:
                    ids = [str(m.get("id")) for m in response.json().get("data") or []]
                except (BodyProblem, AttributeError) as exc:
                    raise BackendError(f"{url} did not return a model list", transient=True) from exc
                if len(ids) != 1:
                    raise BackendError(
                        f"{url} serves {len(ids)} models ({', '.join(ids) or 'none'}): pass --model",
                        transient=False,
                    )
                self._model = ids[0]
            return self._model

    def _body(self, request: GenerationRequest, model: str) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": request.max_tokens,
        }
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.top_p is not None:
            body["top_p"] = request.top_p
        if request.seed is not None:
            body["seed"] = request.seed
        if request.stop:
            body["stop"] = list(request.stop)
        messages = chat_messages(request)
        if messages is not None:
            body["messages"] = messages
            return "/chat/completions", body
        body["prompt"] = request.prompt
        return "/completions", body

    async def generate(self, request: GenerationRequest, stop: StreamStop | None = None) -> Completion:
        """A server whose streams carry no usage is asked whole, unless ``stop`` (the loop cut-off) needs the
        stream and the server has a tokenizer endpoint to count it with (its answer is then not generated twice)."""
        path, body = self._body(request, await self._model_name())
        while True:
            async with self._pool.slot() as held:
                try:
                    completion = await self._generate_at(held.url, path, body, request, stop)
                except CutStream as exc:
                    if not self._pool.overlapped(held):
                        raise  # cut with nothing else in flight: the engine's retries decide
                    self._lowered(held, exc)
                    stop = stop.fresh() if stop is not None else None
                    continue  # a cut caused by concurrency is retried here, at the lowered limit
            if held.url in self._pool.limits:
                completion.extra["endpoint_concurrency"] = str(self._pool.limits[held.url])
            return completion

    def _lowered(self, held: Slot, cut: CutStream) -> None:
        """Lower the endpoint's concurrency after a stream it cut while others were in flight, and count it."""
        seen = self._cuts.setdefault(held.url, _Cuts(first=str(cut)))
        seen.count += 1
        seen.most_in_flight = max(seen.most_in_flight, self._pool.in_flight()[held.url])
        self._pool.lower(held)

    @property
    def endpoint_notes(self) -> list[str]:
        """One line per endpoint whose concurrency this backend lowered: what it saw and what it did (the runner
        records them in the run; ``aclose`` prints them)."""
        return [f"forgegate: {url} cut {seen.count} stream(s) short (no finish reason) while up to "
                f"{seen.most_in_flight} requests were in flight there; forgegate sent it at most "
                f"{self._pool.limits.get(url)} at a time from then on and retried the cut requests "
                f"(llama-cpp-python's server does this with interrupt_requests on; first cut: {seen.first})"
                for url, seen in self._cuts.items()]

    @property
    def endpoint_lines(self) -> list[str]:
        """What ``aclose`` prints: one short line per endpoint whose concurrency was lowered, said as what the
        server does, not as a failure (forgegate retried every cut request; issue 45). The run store keeps the
        full note (``endpoint_notes``)."""
        lines = []
        for url, seen in self._cuts.items():
            limit = self._pool.limits.get(url)
            if limit == 1:
                lines.append(f"{url}: this server answers one stream at a time; forgegate sent one at a time "
                             "from then on")
            else:
                lines.append(f"{url}: this server cut streams with {seen.most_in_flight} in flight; forgegate "
                             f"sent at most {limit} at a time from then on")
        return lines

    async def _generate_at(self, base: str, path: str, body: dict[str, Any], request: GenerationRequest,
                           stop: StreamStop | None) -> Completion:
        if self._unstreamed.get(base) and not await self._streams_for(stop, base):
            whole = await self._generate_whole(base, path, body, request)
            if whole is not None:
                return whole
        return await self._generate_streamed(base, path, body, request, stop)

    async def _generate_whole(
        self, base: str, path: str, body: dict[str, Any], request: GenerationRequest
    ) -> Completion | None:
        """The answer asked for without streaming; None (and the endpoint streams from then on)
        when it carries no usage."""
        if request.token_boundaries:
            body = {**body, **logprob_request(chat=path == "/chat/completions")}
        obj, url, started = await post_whole(self._client, base, path, body, self._redact, self.config.timeout_s)
        answer = _whole_answer(obj, url, self._redact)
        if answer is None:
            self._unstreamed[base] = False
            return None
        text, usage, finish, prompt_tokens, choice = answer
        extra = {"streamed": "false", "server_completion_tokens": str(usage), "server_finish_reason": finish,
                 ENDED_BY: finish}
        texts: tuple[str, ...] | None = None
        if request.token_boundaries:
            found = token_texts_of(choice, text, usage)
            if isinstance(found, str):
                extra["token_boundaries"] = f"none: {found}"
            else:
                texts, extra["token_boundaries"] = found
        source: TokenSource = "server-usage"
        if usage < (floor := token_floor(text)):  # a count the text cannot hold (issue 46): never trusted
            extra[DISAGREEMENT] = (f"the server reported {usage} completion tokens for a text of {floor} words; "
                                   f"counted {floor}, one per word, the count that cannot under-count")
            usage, source, texts = floor, "text-floor", None
            if usage > request.max_tokens:
                raise BackendError(f"{url} answered at least {usage} tokens (words) for a cap of "
                                   f"{request.max_tokens} while reporting {extra['server_completion_tokens']}, and "
                                   "a non-streamed answer has no token boundaries to cut it at", transient=False)
        if usage > request.max_tokens and texts is not None:  # the boundaries place the cap exactly
            texts = texts[: request.max_tokens]
            text, usage, finish = "".join(texts), request.max_tokens, "length"
            extra["server_exceeded_cap"] = "true"
        elif usage > request.max_tokens:
            capped = before_finished_character(text, usage - request.max_tokens)
            if capped is None:
                raise BackendError(f"{url} answered {usage} tokens past the cap of {request.max_tokens} (it ignored "
                                   "max_tokens) and a non-streamed answer has no token boundaries to cut it at",
                                   transient=False)
            text, usage, finish = capped, request.max_tokens, "length"
            extra["server_exceeded_cap"] = "true"
        if "server_exceeded_cap" in extra:
            extra[ENDED_BY] = CAP_CUT
        done: FinishReason = "length" if finish == "length" else "stop"
        return Completion(text=text, tokens=usage, token_source=source, finish=done,
                          latency_s=time.perf_counter() - started, ttft_s=None, token_texts=texts,
                          model_digest=None, endpoint=base, extra=extra, prompt_tokens=prompt_tokens)

    async def _generate_streamed(
        self, base: str, path: str, body: dict[str, Any], request: GenerationRequest, stop: StreamStop | None = None
    ) -> Completion:
        streaming = {**body, "stream": True, "stream_options": {"include_usage": True}}
        streamed = await stream_at(self._client, base, path, streaming, self._redact,
                                   lambda response: _events(response, self._redact), request.max_tokens,
                                   deadline_s=self.config.timeout_s, stop=stop, check=require_event_stream)
        got = streamed.got  # stream_at raised CutStream unless the server finished it (or forgegate cut it)
        if (not got.capped and not got.looped and got.usage_tokens is None and self._unstreamed.setdefault(base, True)
                and not await self._streams_for(stop, base)):
            whole = await self._generate_whole(base, path, body, request)  # it never counts in a stream: ask
            if whole is not None:  # it whole, this request too (and concurrent ones that streamed meanwhile)
                return whole
        if not got.capped and not got.looped:  # a stream closed early never got to its usage: it tells nothing
            self._unstreamed.setdefault(base, False)
        tokens, source, texts, extra = _count(got)
        if source == "server-usage" and texts is None:  # deltas are not tokens: the tokenizer may place them
            counted = await self._tokenizer.token_texts(streamed.endpoint, got.token_texts)
            if counted is not None and len(counted) < tokens:  # ASCII deltas of several tokens each
                counted = await self._tokenizer.token_texts(streamed.endpoint, got.token_texts, every=True)
            texts = counted if counted is not None and len(counted) == tokens else None
        # a floor (also after a usage the text cannot hold): a tokenizer that counts more places the cap (without
        # it, "0 0 0\n0" kept a token past it); one that counts the same replaces no disagreement's floor
        if source != "server-usage":
            counted = await self._tokenizer.token_texts(streamed.endpoint, got.token_texts)
            more = counted is not None and len(counted) > tokens
            if counted is not None and (more or (len(counted) == tokens and DISAGREEMENT not in extra)):
                tokens, source, texts = len(counted), "server-tokenize", counted
        # the server may have gone past the cap inside multi-token deltas: cut at the cap, or refuse the answer
        tokens, texts = cut_to_cap(got, tokens, texts, request.max_tokens, streamed.url, extra)
        return build_completion(
            got,
            finish="loop" if got.looped and not got.capped else _finish(got, tokens, request.max_tokens),
            tokens=tokens,
            token_source=source,
            started=streamed.started,
            model_digest=None,
            endpoint=streamed.endpoint,
            token_texts=texts,
            extra=extra,
        )

    async def _streams_for(self, stop: StreamStop | None, base: str) -> bool:
        """Whether a request with ``stop`` streams from ``base`` although its streams carry no usage: only
        where its tokenizer endpoint can count the stream (otherwise the answer is asked whole and judged
        after the fact, never cut off)."""
        return stop is not None and await self._tokenizer.available(base)

    async def aclose(self) -> None:
        for line in self.endpoint_lines:
            notice(line)
        await self._client.aclose()


def _count(got: Collected) -> tuple[int, TokenSource, tuple[str, ...] | None, dict[str, str]]:
    """(tokens, source, one text per token or None, notes) of a stream: the server's usage where the stream
    reached it and the text can hold that many tokens, else the floor (:func:`token_floor`), a lower bound.
    The count may exceed the cap: :func:`cut_to_cap` then cuts at the cap or refuses the answer."""
    chunks = len(got.token_texts)
    floor = token_floor(got.text, chunks)
    extra = {"stream_chunks": str(chunks)}
    if got.server_finish:
        extra["server_finish_reason"] = got.server_finish
    pieces = tuple(got.token_texts) if floor == chunks else None
    if got.capped or got.looped or got.usage_tokens is None:
        return floor, floor_source(floor, chunks), pieces, extra
    extra["server_completion_tokens"] = str(got.usage_tokens)
    if got.usage_tokens < floor:  # every text delta and every word is at least one token: it under-counts the text
        extra[DISAGREEMENT] = (f"the server reported {got.usage_tokens} completion tokens for {chunks} text "
                               f"deltas holding {token_floor(got.text)} words; counted {floor}, one per delta or "
                               "word, the count that cannot under-count")
        return floor, floor_source(floor, chunks), pieces, extra
    texts = tuple(got.token_texts) if got.usage_tokens == chunks else None
    return got.usage_tokens, "server-usage", texts, extra


def before_finished_character(text: str, over: int) -> str | None:
    """The text of the tokens up to the cap, when a server went ``over`` it only to finish a character.

    llama-cpp-python does not stop on a token that leaves a character's UTF-8 bytes incomplete (as
    it judges from the text's last bytes): the one to three tokens past ``max_tokens`` complete the
    character the cap split (and may carry text after it), so the text up to the cap ends before
    the last non-ASCII character (off by one character only if the overrun also held a whole
    non-ASCII character). None when the overrun is more than a split character explains: the
    server ignored the cap.
    """
    last = max((i for i, char in enumerate(text) if not char.isascii()), default=None)
    if last is None or over >= len(text[last].encode()):
        return None
    return text[:last]


def _whole_answer(
    obj: dict[str, Any], url: str, redact: Redactor
) -> tuple[str, int, str, int | None, dict[str, Any]] | None:
    """(text, completion tokens, finish reason, prompt tokens, the choice) of a non-streamed answer; None
    without usage. Read as strictly as a stream: one choice, a string text, a finish reason that is not a
    failure (an answer without one is not known to be whole), non-negative counts."""
    choices = obj.get("choices")
    if "error" in obj or not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0], dict):
        raise BackendError(redact(f"{url} answered without exactly one choice: {str(obj)[:300]}"), transient=True)
    choice = choices[0]
    text = choice_text(choice, "message")
    usage = typed(obj.get("usage"), dict, "'usage'")
    tokens = count_field(usage, "completion_tokens", f"{url} usage") if usage is not None else None
    if tokens is None:
        return None
    prompt = count_field(usage, "prompt_tokens", f"{url} usage") if usage is not None else None
    finish = typed(choice.get("finish_reason"), str, "'finish_reason'")
    if not finish or finish in FAILED_FINISHES:
        raise BackendError(redact(f"{url} answered with finish reason {finish!r}: not a finished answer"),
                           transient=True)
    return text or "", tokens, finish, prompt, choice


def _finish(got: Collected, tokens: int, max_tokens: int) -> FinishReason:
    if got.capped or got.server_finish == "length" or (got.usage_tokens or 0) > max_tokens:
        return "length"
    if got.server_finish is not None:
        return "stop"  # "stop", "eos", "content_filter", ...: the server ended the answer itself
    return "length" if tokens >= max_tokens else "stop"


async def _events(response: httpx.Response, redact: Redactor) -> AsyncIterator[StreamEvent]:
    """The stream's events, each field read strictly (a wrong type is a transient backend error, never a crash
    and never coerced): one choice only (index 0), its text a string, its finish reason a string, usage counts
    non-negative integers."""
    async for data in iter_sse_data(response):
        if data.strip() == "[DONE]":  # read on to the end of the body: the connection is then reused, and
            yield StreamEvent(done=True)  # anything after the end marker is an error (collect_capped)
            continue
        obj = load_object(data)
        if "error" in obj:
            raise BackendError(redact(f"server error mid-stream: {obj['error']!r:.300}"), transient=True)
        usage = typed(obj.get("usage"), dict, "'usage'")
        if usage is not None:
            tokens = count_field(usage, "completion_tokens", "stream usage")
            prompt = count_field(usage, "prompt_tokens", "stream usage")
            if tokens is not None:
                yield StreamEvent(usage_tokens=tokens, prompt_tokens=prompt)
        choices = typed(obj.get("choices"), list, "'choices'") or []
        if len(choices) > 1:
            raise BackendError(f"stream line with {len(choices)} choices (forgegate asks for one)", transient=True)
        for choice in choices:
            yield from_choice(typed(choice, dict, "a choice") or {})


def choice_text(choice: dict[str, Any], holder: str) -> str | None:
    """A choice's text: ``text`` (completions) or ``<holder>.content`` (chat: ``delta`` streamed, ``message``
    whole), whichever the server filled; a null or empty one beside the other is no text (issue 46: ``"text":
    null`` beside ``"delta": {"content": "Paris"}`` lost "Paris"). Two different texts in one choice are a
    malformed answer (transient), never one of them picked."""
    raw: str | None = typed(choice.get("text"), str, "a choice's 'text'")
    inner = typed(choice.get(holder), dict, f"a choice's '{holder}'") or {}
    content: str | None = typed(inner.get("content"), str, f"a {holder}'s 'content'")
    if raw and content and raw != content:
        raise BackendError(f"a choice with two texts ('text' {raw!r:.60} and '{holder}.content' {content!r:.60})",
                           transient=True)
    return raw or content


def from_choice(choice: dict[str, Any]) -> StreamEvent:
    """One streamed choice as an event: its text (``text``, or ``delta.content``) and its finish reason."""
    index = choice.get("index", 0)
    if index is not None and (isinstance(index, bool) or index != 0):
        raise BackendError(f"stream line for choice {index!r:.40} (forgegate asks for one, index 0)", transient=True)
    text = choice_text(choice, "delta")
    finish = typed(choice.get("finish_reason"), str, "'finish_reason'")
    if finish:
        return StreamEvent.finishing(finish, token=text or None)
    return StreamEvent(token=text or None)
