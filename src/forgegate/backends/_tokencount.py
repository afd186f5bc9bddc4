"""Token counts and boundaries of streamed deltas from an OpenAI-compatible server's tokenizer endpoint.

Its tokenizer endpoint (``POST /extras/tokenize`` of llama-cpp-python's ``llama_cpp.server``;
``POST /tokenize`` of the C++ llama.cpp server) serves two cases in forgegate.backends.openai:

* a stream that carries usage but fewer deltas than tokens (llama.cpp's ``llama-server`` holds
  back a character split over byte tokens and sends it as one delta): the usage counts, and the
  tokenizer places the boundaries when its count agrees;
* the last resort for a server whose answers carry no usage streamed or not: the tokenizer counts.

llama-cpp-python (0.3.36) itself sends no usage in a stream, even with
``stream_options.include_usage``, so the backend asks it without streaming, where ``usage`` is
exact. The per-delta count below was its route before, and it is not exact: one delta can hold
several tokens (the server sends each piece of text as soon as it decodes as UTF-8), and
SmolLM2 writes ``ι`` as two byte tokens where its tokenizer has one. Its per-token
log-probabilities (``logprobs: true``) give one entry per token but name no bytes (``bytes:
null``), drop a character split across tokens from the text (``ι is ...`` streams as `` is
...``), and cost about four times the generation (a full-vocabulary sort per token); the
non-streamed ones place the boundaries a ``within_tokens`` window needs (forgegate.backends._boundaries).

Re-tokenizing a whole answer is not exact either: the model may spell a word in other tokens
than the tokenizer would (``A`` ``x`` ``el`` where the tokenizer says ``Ax`` ``el``).
Re-tokenizing each *delta* keeps the model's own boundaries: a delta of ASCII text is one token
(an ASCII token always decodes on its own, so it is never held back and joined to the next), and
a delta holding other characters is the smallest run of tokens that decodes, counted by the
tokenizer.

A delta of ``k`` tokens becomes ``k - 1`` empty token texts followed by its text: the text of
the first ``n`` tokens then holds only characters whose every token lies within those ``n``.
Counts of non-ASCII deltas are cached per endpoint (LATTICE glyphs repeat).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from forgegate.backends._body import BodyProblem, request_whole
from forgegate.backends._http import Redactor, body_status, http_errors, join_url
from forgegate.backends._httpx import httpx
from forgegate.backends.base import BackendError
from forgegate.core.limits import DEFAULT_TIMEOUT_S


def token_floor(text: str, pieces: int = 0) -> int:
    """The fewest tokens any tokenizer forgegate meets can spell ``text`` in, streamed as ``pieces`` pieces that
    each carried text: at least one a piece, and at least one a word (a run of characters between spaces that
    holds more than whitespace).

    No token holds text (other than whitespace) on both sides of a space: BPE tokenizers split the text at
    spaces before merging (GPT-2's pattern and its successors: Llama 3, Qwen, SmolLM2) and SentencePiece's do by default
    (``split_by_whitespace``: Llama 2, Mistral, Gemma), so each word begins a token of its own. A count
    below this floor cannot be true for the text (issue 46: 121 words reported as 1 completion token); a
    tokenizer that merges across spaces (a "superword" vocabulary) would have its answers counted high, never
    low (see docs/project/security.md).
    """
    return max(pieces, sum(1 for word in text.split(" ") if word.strip()))


ROUTES: tuple[tuple[str, str], ...] = (("/extras/tokenize", "input"), ("/tokenize", "content"))
"""(path under the server root, field holding the text): llama-cpp-python's, then llama.cpp's."""
_ABSENT = frozenset({404, 405})


def server_root(base_url: str) -> str:
    """The server root of an OpenAI base URL (``http://host:port/v1`` -> ``http://host:port``)."""
    base = base_url.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


class _Route:
    def __init__(self, url: str, field: str, baseline: int) -> None:
        self.url, self.field, self.baseline = url, field, baseline
        self.cache: dict[str, int] = {}


class ServerTokenizer:
    """Counts the tokens of streamed deltas with the server's own tokenizer endpoint, when it has one."""

    def __init__(self, client: httpx.AsyncClient, redact: Redactor) -> None:
        self._client = client
        self._redact = redact
        self._routes: dict[str, _Route | None] = {}
        self._lock = asyncio.Lock()

    async def _tokens(self, url: str, field: str, text: str) -> list[object] | None:
        """The token list the endpoint returns for ``text``; None when the endpoint does not exist."""
        try:
            async with http_errors(url, self._redact):
                response = await request_whole(self._client, "POST", url, json_body={field: text},
                                               deadline_s=DEFAULT_TIMEOUT_S)
        except BodyProblem as exc:
            raise BackendError(self._redact(exc.message), transient=True) from None
        if response.status_code in _ABSENT:
            return None
        body_status(response, self._redact)
        try:
            tokens = response.json().get("tokens")
        except (BodyProblem, AttributeError):
            return None
        return tokens if isinstance(tokens, list) else None

    async def _route(self, endpoint: str) -> _Route | None:
        """Find (once per endpoint) which tokenizer route the server has, and how many tokens it
        adds to any text (a BOS token on some models): the count of the empty string."""
        async with self._lock:
            if endpoint not in self._routes:
                found = None
                root = server_root(endpoint)
                for path, field in ROUTES:
                    url = join_url(root, path)
                    empty = await self._tokens(url, field, "")
                    if empty is not None:
                        found = _Route(url, field, len(empty))
                        break
                self._routes[endpoint] = found
            return self._routes[endpoint]

    async def available(self, endpoint: str) -> bool:
        return await self._route(endpoint) is not None

    async def token_texts(self, endpoint: str, deltas: Sequence[str], *,
                          every: bool = False) -> tuple[str, ...] | None:
        """One text per token for the streamed ``deltas`` (see the module doc); None without a route. An ASCII
        delta of one word is one token unless ``every`` (a server whose deltas carry several tokens, issue 46:
        its count says so, or a delta holds several words): then every delta is counted. A delta with text on both
        sides of any whitespace (``"0\\n0 "``: one word by spaces, two tokens) is always counted: taken as one token
        it let a capped stream keep text past the cap."""
        route = await self._route(endpoint)
        if route is None:
            return None
        texts: list[str] = []
        for delta in deltas:
            single = not every and delta.isascii() and len(delta.split()) <= 1
            n = 1 if single else await self._count(route, delta)
            texts.extend([""] * (n - 1))
            texts.append(delta)
        return tuple(texts)

    async def _count(self, route: _Route, text: str) -> int:
        if text not in route.cache:
            tokens = await self._tokens(route.url, route.field, text)
            if tokens is None:
                raise BackendError(f"{route.url} stopped answering token counts", transient=True)
            route.cache[text] = max(1, len(tokens) - route.baseline)
        return route.cache[text]
