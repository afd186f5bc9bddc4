"""The one reader of what a server sends forgegate whole: bounded in size, nesting depth and time.

A model list (``/v1/models``, ``/api/tags``), a non-streamed answer, a tokenizer's reply, an adapter call's
answer and an error status's body are each read here, never by ``response.json()``, ``response.text`` or
``client.get`` / ``client.post`` (which read a body whole, with no bound, and time only each read, so a body
dripped one byte a second never misses the idle timeout). Three bounds, each with its one home:

- size: at most ``core.limits.MAX_SERVER_BODY_BYTES`` (an error body: ``MAX_ERROR_BODY_BYTES``), counted as
  the bytes arrive, so a 300 MB model list is refused at 16 MiB, never held;
- time: the whole request, connect to last byte, within ``deadline_s`` (``--timeout``);
- depth: the JSON is parsed by ``jsonio.parse_json_strict`` (at most ``MAX_JSON_DEPTH`` levels), so a body
  nested 100,000 deep is a refused body, never a RecursionError (exit 70).

A body that breaks a bound raises :class:`BodyProblem`; the caller words it for its place (a UsageError at
the endpoint probe, a transient BackendError during a run). Streams are read line by line elsewhere
(``_http``), each line bounded by ``MAX_STREAM_LINE_BYTES``.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from forgegate.backends._httpx import httpx
from forgegate.core.limits import MAX_ERROR_BODY_BYTES, MAX_SERVER_BODY_BYTES
from forgegate.jsonio import JsonProblem, parse_json_strict


class BodyProblem(Exception):
    """A server's answer broke a bound (too large, too slow, too deep) or is not the JSON it must be."""

    def __init__(self, message: str, *, late: bool = False) -> None:
        super().__init__(message)
        self.message, self.late = message, late
        """``late``: the answer missed its deadline (the others: too large, or not JSON)."""


@dataclass(frozen=True)
class Body:
    """A whole answer read within the bounds: its status, headers and bytes."""

    status_code: int
    headers: httpx.Headers
    raw: bytes
    url: str

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8", "replace")

    def json(self) -> Any:
        """The body as JSON (the strict reader: a repeated key, a depth past ``MAX_JSON_DEPTH``, a lone
        surrogate refused); anything that is not JSON is a :class:`BodyProblem`."""
        return parse_body(self.raw, self.url)


def parse_body(raw: bytes, url: str) -> Any:
    """``raw`` (a whole body) parsed by the strict JSON reader; a failure is a :class:`BodyProblem` naming ``url``."""
    try:
        return parse_json_strict(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise BodyProblem(f"{url} answered with bytes that are not UTF-8 (at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise BodyProblem(f"{url} answered with something that is not JSON ({exc.msg}, column {exc.colno}): "
                          f"{raw[:120]!r}") from None
    except JsonProblem as exc:
        raise BodyProblem(f"{url} answered with JSON forgegate does not read: {exc.message}") from None


async def read_limited(response: httpx.Response, url: str, limit: int = MAX_SERVER_BODY_BYTES) -> bytes:
    """The body of an open (streamed) ``response``, at most ``limit`` bytes; more is a :class:`BodyProblem`, raised
    as soon as the bytes that arrived pass the limit (or the server declares a larger ``Content-Length``)."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyProblem(_too_large(url, limit, f"it declares {int(declared):,} bytes"))
    held = bytearray()
    async for chunk in response.aiter_bytes():
        held += chunk
        if len(held) > limit:
            raise BodyProblem(_too_large(url, limit, "it sent more"))
    return bytes(held)


async def read_prefix(response: httpx.Response, limit: int = MAX_ERROR_BODY_BYTES) -> bytes:
    """At most ``limit`` bytes of an open ``response``'s body, the rest left unread (an error status's message)."""
    held = bytearray()
    async for chunk in response.aiter_bytes():
        held += chunk
        if len(held) >= limit:
            break
    return bytes(held[:limit])


def _too_large(url: str, limit: int, said: str) -> str:
    return (f"{url} answered with more than {limit // (1024 * 1024)} MiB ({said}), the most forgegate reads of one "
            "answer: a server gone wrong, not an answer")


async def request_whole(client: httpx.AsyncClient, method: str, url: str, *, deadline_s: float,
                        json_body: Any = None, limit: int = MAX_SERVER_BODY_BYTES,
                        timeout: httpx.Timeout | None = None) -> Body:
    """Send one request and read its whole answer within the bounds: ``limit`` bytes, ``deadline_s`` seconds from
    connect to last byte. Transport errors (connect, idle timeout) are httpx's, for the caller to word; a missed
    deadline or an oversized body is a :class:`BodyProblem`. An error status's body is read up to
    ``MAX_ERROR_BODY_BYTES`` (a message, not an answer)."""
    options: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
    try:
        async with asyncio.timeout(deadline_s):
            async with client.stream(method, url, json=json_body, **options) as response:
                raw = (await read_limited(response, url, limit) if response.status_code < 400
                       else await read_prefix(response))
    except TimeoutError:
        raise BodyProblem(f"{url} did not finish its answer within the {deadline_s:g} s deadline (--timeout): "
                          "a server that drips its answer is stalled", late=True) from None
    return Body(response.status_code, response.headers, raw, url)
