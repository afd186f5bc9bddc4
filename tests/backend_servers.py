"""Local fake model servers for tests: Ollama's documented native API and an OpenAI-compatible SSE API.

There is no Ollama binary on the test machines, so ``FakeOllamaServer`` speaks the API of
https://github.com/ollama/ollama/blob/main/docs/api.md: ``GET /api/tags`` (name, model,
digest, ...), ``POST /api/generate`` and ``POST /api/chat`` streaming NDJSON chunks (one
token per chunk, then ``{"done": true, "done_reason": ...}``), an empty ``prompt`` on
``/api/generate`` answered by "load the model" (one ``done`` object, no text), ``POST /api/show`` (the
model's ``parameters``, its served sampling), an empty
``messages`` list on ``/api/chat`` answered with ``done_reason: "load"``, and ``404
{"error": ...}`` for an unknown model. ``FakeOpenAIServer`` serves ``/v1/models``,
``/v1/chat/completions`` and ``/v1/completions`` with SSE, ``stream_options.include_usage``
and ``data: [DONE]``; it exists because a real llama.cpp server cannot be made to fail on
demand.

Both answer from a script (prompt -> response text; the prompt is ``prompt`` or the last
user message) tokenised with :func:`tokenize` (one token = a run of non-space characters and
the spaces after it), and take a :class:`Behaviour` that can ignore the token cap, stream
forever, fail the first K requests with a status, drop or truncate the first K streams, or
stall before the first byte. Every request is recorded in ``server.requests``.

Usage::

    with FakeOllamaServer(Behaviour(script={"2+2?": "4"}, fail_first=2)) as server:
        backend = OllamaBackend(BackendConfig(model="gloss", base_urls=(server.url,)))
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Sequence
from typing import Any

from backend_fake_http import (
    FAKE_DIGEST,
    FOREVER_LIMIT,
    Behaviour,
    FakeHandler,
    FakeServer,
    RecordedRequest,
    now_iso,
    tokenize,
)

from forgegate.backends import Backend, BackendConfig, BackendError, make_backend
from forgegate.core.records import Completion, GenerationRequest, StreamStop

__all__ = [
    "FAKE_DIGEST",
    "FOREVER_LIMIT",
    "Behaviour",
    "FakeOllamaServer",
    "FakeOpenAIServer",
    "FakeServer",
    "RecordedRequest",
    "gather_results",
    "greedy",
    "run_requests",
    "tokenize",
]


def _ollama_name(name: str) -> str:
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


class FakeOllamaServer(FakeServer):
    """Ollama's native API as documented; ``url`` is ``http://127.0.0.1:PORT`` (what OLLAMA_HOST names)."""

    def _show(self, handler: FakeHandler, model: str) -> None:
        """``POST /api/show``: the model's Modelfile, its ``parameters`` (one ``name value`` a line) and details."""
        if _ollama_name(model) not in {_ollama_name(m) for m in self.behaviour.models}:
            handler.send_json(404, {"error": f"model '{model}' not found"})
            return
        handler.send_json(200, {"modelfile": f"FROM {model}\n", "parameters": self.behaviour.parameters,
                                "template": "{{ .Prompt }}", "details": {"format": "gguf", "family": "llama"}})

    def handle_get(self, handler: FakeHandler) -> None:
        if handler.path == "/api/tags":
            models = [
                {
                    "name": n,
                    "model": n,
                    "modified_at": now_iso(),
                    "size": 98362432,
                    "digest": d,
                    "details": {
                        "format": "gguf",
                        "family": "llama",
                        "parameter_size": "135M",
                        "quantization_level": "Q4_1",
                    },
                }
                for n, d in self.behaviour.models.items()
            ]
            handler.send_json(200, {"models": models})
        elif handler.path == "/api/version":
            handler.send_json(200, {"version": "0.0.0-fake"})
        else:
            handler.send_json(404, {"error": "404 page not found"})

    def handle_post(self, handler: FakeHandler, body: dict[str, Any]) -> None:
        if handler.path == "/api/show":
            self._show(handler, str(body.get("model") or body.get("name") or ""))
            return
        if handler.path not in ("/api/generate", "/api/chat"):
            handler.send_json(404, {"error": "404 page not found"})
            return
        model = str(body.get("model", ""))
        if _ollama_name(model) not in {_ollama_name(m) for m in self.behaviour.models}:
            handler.send_json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        chat = handler.path == "/api/chat"
        messages = body.get("messages") or []
        prompt = str(body.get("prompt") or "") if not chat else _last_user(messages)
        head = {"model": model, "created_at": now_iso()}
        if (not chat and prompt == "") or (chat and not messages):  # "load a model"
            load = {**head, "done": True}
            load.update(
                {"message": {"role": "assistant", "content": ""}, "done_reason": "load"} if chat else {"response": ""}
            )
            handler.send_json(200, load)
            return
        n = self.next_generation()
        if self.fault(handler, n, {"error": "llama runner process has terminated: fake failure"}):
            return
        options = body.get("options") or {}
        chunks, finish, count = self.plan(prompt, options.get("num_predict"), list(options.get("stop") or []),
                                          options.get("seed"))

        def piece(text: str) -> dict[str, Any]:
            return {"message": {"role": "assistant", "content": text}} if chat else {"response": text}

        final = {
            **head,
            **piece(""),
            "done": True,
            "done_reason": finish,
            "total_duration": 1000,
            "load_duration": 10,
            "prompt_eval_count": len(tokenize(prompt)),
            "eval_count": count,
            "eval_duration": 900,
        }
        if body.get("stream") is False:
            handler.send_json(200, {**final, **piece("".join(chunks))})
            return
        handler.start_chunked("application/x-ndjson")
        lines = (json.dumps({**head, **piece(t), "done": False}).encode() + b"\n" for t in chunks)
        self.stream(handler, n, lines, [json.dumps(final).encode() + b"\n"])


def _logprob_list(tokens: list[str], chat: bool, prompt_chars: int) -> dict[str, Any]:
    """Logprobs as llama-cpp-python lists them: chat entries name each token's text; a raw completion
    also gives each token's character offset, counted from the start of the prompt."""
    if chat:
        return {"content": [{"token": t, "logprob": 0.0, "bytes": None, "top_logprobs": []} for t in tokens]}
    offsets = [prompt_chars + sum(len(t) for t in tokens[:i]) for i in range(len(tokens))]
    return {"tokens": tokens, "text_offset": offsets, "token_logprobs": [0.0] * len(tokens),
            "top_logprobs": [None] * len(tokens)}

def _last_user(messages: list[dict[str, Any]]) -> str:
    users = [m for m in messages if m.get("role") == "user"]
    return str(users[-1].get("content") or "") if users else ""


class FakeOpenAIServer(FakeServer):
    """An OpenAI-compatible server (SSE); ``url`` ends in ``/v1`` like a vLLM or llama.cpp base URL."""

    url_suffix = "/v1"

    def _authorised(self, handler: FakeHandler) -> bool:
        key = self.behaviour.api_key
        if key is None or handler.headers.get("Authorization") == f"Bearer {key}":
            return True
        handler.send_json(
            401,
            {
                "error": {
                    "message": "Incorrect API key provided",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
        )
        return False

    def handle_get(self, handler: FakeHandler) -> None:
        if handler.path == "/v1/models" and self._authorised(handler):
            data = [{"id": n, "object": "model", "created": 0, "owned_by": "fake"} for n in self.behaviour.models]
            handler.send_json(200, {"object": "list", "data": data})
        elif handler.path != "/v1/models":
            handler.send_json(404, {"error": {"message": "not found", "type": "not_found"}})

    def handle_post(self, handler: FakeHandler, body: dict[str, Any]) -> None:
        path = self.behaviour.tokenize_path
        if path is not None and handler.path == path and self._authorised(handler):
            text = str(body.get("input" if path == "/extras/tokenize" else "content", ""))
            ids = [1] * self.behaviour.tokenize_bos + [100 + i for i, _ in enumerate(tokenize(text))]
            handler.send_json(200, {"tokens": ids})
            return
        chat = handler.path == "/v1/chat/completions"
        if not chat and handler.path != "/v1/completions":
            handler.send_json(404, {"error": {"message": "not found", "type": "not_found"}})
            return
        if not self._authorised(handler):
            return
        model = str(body.get("model", ""))
        if model not in self.behaviour.models:
            handler.send_json(
                404,
                {
                    "error": {
                        "message": f"The model `{model}` does not exist.",
                        "type": "invalid_request_error",
                        "code": "model_not_found",
                    }
                },
            )
            return
        n = self.next_generation()
        if self.fault(handler, n, {"error": {"message": "fake upstream failure", "type": "server_error"}}):
            return
        prompt = _last_user(body.get("messages") or []) if chat else str(body.get("prompt") or "")
        stop = body.get("stop") or []
        chunks, finish, count = self.plan(prompt, body.get("max_tokens"), [stop] if isinstance(stop, str) else stop,
                                          body.get("seed"))
        head = {
            "id": f"cmpl-{n}",
            "object": "chat.completion.chunk" if chat else "text_completion",
            "created": int(time.time()),
            "model": model,
        }
        usage = {
            "prompt_tokens": len(tokenize(prompt)),
            "completion_tokens": count,
            "total_tokens": len(tokenize(prompt)) + count,
        }

        def choice(text: str | None, reason: str | None) -> dict[str, Any]:
            if chat:
                return {
                    "index": 0,
                    "delta": {} if text is None else {"content": text},
                    "finish_reason": reason,
                }
            return {"index": 0, "text": text or "", "finish_reason": reason}

        if body.get("stream") is not True:
            full = "".join(chunks)
            msg = (
                {"index": 0, "message": {"role": "assistant", "content": full}, "finish_reason": finish}
                if chat
                else {"index": 0, "text": full, "finish_reason": finish}
            )
            if "logprobs" in body:
                listed = self.behaviour.logprob_tokens.get(full, tokenize(full))
                msg["logprobs"] = _logprob_list(listed, chat, len(prompt))
            time.sleep(self.behaviour.whole_delay_s)
            counted = {"usage": usage} if self.behaviour.whole_usage else {}
            handler.send_json(200, {**head, "choices": [msg], **counted})
            return
        want_usage = self.behaviour.send_usage and bool((body.get("stream_options") or {}).get("include_usage"))
        extra = {"usage": None} if want_usage else {}

        def event(obj: dict[str, Any]) -> bytes:
            return b"data: " + json.dumps(obj).encode() + b"\n\n"

        handler.start_chunked("text/event-stream")
        first = (
            [
                event(
                    {
                        **head,
                        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
                        **extra,
                    }
                )
            ]
            if chat
            else []
        )
        lines = itertools.chain(first, (event({**head, "choices": [choice(t, None)], **extra}) for t in chunks))
        final = [event({**head, "choices": [choice(None, finish)], **extra})]
        if want_usage:
            final.append(event({**head, "choices": [], "usage": usage}))
        final.append(b"data: [DONE]\n\n")
        self.stream(handler, n, lines, final)


async def gather_results(backend: Backend, requests: list[GenerationRequest],
                         stops: Sequence[StreamStop | None] | None = None) -> list[Completion | BackendError]:
    """Run requests concurrently on one backend (each with its stop predicate from ``stops``, when given);
    failures come back as BackendError values, then close it."""
    each = list(stops) if stops is not None else [None] * len(requests)
    try:
        results = await asyncio.gather(*(backend.generate(r) if s is None else backend.generate(r, s)
                                         for r, s in zip(requests, each, strict=True)), return_exceptions=True)
    finally:
        await backend.aclose()
    out: list[Completion | BackendError] = []
    for result in results:
        if isinstance(result, (Completion, BackendError)):
            out.append(result)
        else:
            raise result
    return out


def greedy(**fields: Any) -> GenerationRequest:
    """A greedy request (temperature 0, top_p 1): what a request sent by default before issue 44 (a request now
    sends no sampling, the model's served one applies); the real-model tests written for greedy decoding ask for it."""
    return GenerationRequest(**{"temperature": 0.0, "top_p": 1.0, **fields})


def run_requests(
    name: str, config: BackendConfig, requests: list[GenerationRequest],
    stops: Sequence[StreamStop | None] | None = None,
) -> list[Completion | BackendError]:
    """Build backend ``name`` inside a fresh event loop, run ``requests`` concurrently, close it."""

    async def main() -> list[Completion | BackendError]:
        return await gather_results(make_backend(name, config), requests, stops)

    return asyncio.run(main())
