"""Stand-in servers for issue 33: streams that end oddly, and a server that cuts a stream when another arrives.

``OddEndingOpenAI`` / ``OddEndingOllama`` answer their first ``odd_first`` generation requests (or every one,
``odd_first=None``) with a scripted stream from :data:`OPENAI_ENDINGS` / :data:`OLLAMA_ENDINGS`, then answer
normally (the whole scripted answer), so a test sees what forgegate does with the odd ending and with the
retry. ``InterruptingOpenAI`` is modelled on llama-cpp-python's server with ``interrupt_requests`` on (its
default; ``llama_cpp/server/app.py``): generation is serialised by a lock, and a stream that sees another
request waiting sends ``data: [DONE]`` at once, without a finish reason, and ends. A real llama.cpp server
cannot be made to end a stream in each of these ways on demand, hence the stand-ins (the real server's
interruption is exercised by ``test_streams_llamacpp_concurrency.py``, marked slow).
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from backend_servers import Behaviour, FakeOllamaServer, FakeOpenAIServer, tokenize

ANSWER = "HOW ABOUT NO."
"""The whole answer every stand-in gives once it answers normally (three tokens)."""


def sse(obj: object) -> bytes:
    return b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"


def _text(text: object) -> dict[str, Any]:
    return {"choices": [{"index": 0, "text": text, "finish_reason": None}]}


def _finish(reason: object) -> dict[str, Any]:
    return {"choices": [{"index": 0, "text": "", "finish_reason": reason}]}


def _usage(tokens: object) -> dict[str, Any]:
    return {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": tokens, "total_tokens": 1}}


HOW, ABOUT = sse(_text("HOW ")), sse(_text("ABOUT "))
DONE = b"data: [DONE]\n\n"

OPENAI_ENDINGS: dict[str, tuple[list[bytes], bool]] = {
    # name: (the body's SSE events, whether the connection is then dropped instead of ending the body)
    "done-without-finish": ([HOW, ABOUT, DONE], False),
    "done-without-finish-with-usage": ([HOW, ABOUT, sse(_usage(2)), DONE], False),
    "eof-without-finish": ([HOW, ABOUT], False),
    "connection-dropped": ([HOW, ABOUT], True),
    "cut-chunk": ([HOW, b'data: {"choices": [{"index": 0, "text": "ABO\n\n'], False),
    "empty-choices-with-usage": ([sse(_usage(5)), DONE], False),
    "finish-abort": ([HOW, sse(_finish("abort")), DONE], False),
    "finish-error": ([HOW, sse(_finish("error")), DONE], False),
    "text-after-finish": ([HOW, sse(_finish("stop")), ABOUT, DONE], False),
    "second-finish": ([HOW, sse(_finish("stop")), sse(_finish("length")), DONE], False),
    "two-choices": ([sse({"choices": [{"index": 0, "text": "HOW ", "finish_reason": None},
                                      {"index": 1, "text": "ABOUT ", "finish_reason": None}]}),
                     sse(_finish("stop")), DONE], False),
    "choices-a-string": ([HOW, sse({"choices": "abc"}), sse(_finish("stop")), DONE], False),
    "content-a-number": ([sse({"choices": [{"index": 0, "delta": {"content": 5}, "finish_reason": None}]}),
                          sse(_finish("stop")), DONE], False),
    "delta-a-string": ([sse({"choices": [{"index": 0, "delta": "HOW", "finish_reason": None}]}),
                        sse(_finish("stop")), DONE], False),
    "text-a-list": ([sse(_text(["HOW "])), sse(_finish("stop")), DONE], False),
    "choice-a-number": ([sse({"choices": [5]}), sse(_finish("stop")), DONE], False),
    "finish-a-number": ([HOW, sse(_finish(3)), DONE], False),
    "usage-a-list": ([HOW, sse(_finish("stop")), sse({"choices": [], "usage": [2]}), DONE], False),
    "negative-usage": ([HOW, sse(_finish("stop")), sse(_usage(-3)), DONE], False),
    "usage-true": ([HOW, sse(_finish("stop")), sse(_usage(True)), DONE], False),
}
"""Every odd ending of an OpenAI-compatible stream that issue 33 lists (and the odd field shapes)."""


def _ollama(text: str) -> bytes:
    return json.dumps({"response": text, "done": False}).encode() + b"\n"


def _ollama_final(**fields: object) -> bytes:
    return json.dumps({"response": "", "done": True, "eval_count": 2, **fields}).encode() + b"\n"


OLLAMA_ENDINGS: dict[str, tuple[list[bytes], bool]] = {
    "no-done": ([_ollama("HOW "), _ollama("ABOUT ")], False),
    "connection-dropped": ([_ollama("HOW "), _ollama("ABOUT ")], True),
    "done-a-string": ([_ollama("HOW "), json.dumps({"response": "", "done": "false"}).encode() + b"\n",
                       _ollama("ABOUT "), _ollama_final(done_reason="stop")], False),
    "done-reason-abort": ([_ollama("HOW "), _ollama_final(done_reason="abort")], False),
    "done-reason-a-number": ([_ollama("HOW "), _ollama_final(done_reason=7)], False),
    "negative-eval-count": ([_ollama("HOW "), _ollama_final(done_reason="stop", eval_count=-3)], False),
    "eval-count-true": ([_ollama("HOW "), _ollama_final(done_reason="stop", eval_count=True)], False),
    "text-after-done": ([_ollama("HOW "), _ollama_final(done_reason="stop"), _ollama("ABOUT ")], False),
}
"""The odd endings of an Ollama stream."""


class _Odd:
    """The first ``odd_first`` generation requests (every one when None) get the ``ending`` stream."""

    odd_first: int | None = 1
    ending: tuple[list[bytes], bool] = ([], False)
    content_type = "text/event-stream"
    _odd_seen = 0
    _odd_lock = threading.Lock()

    def _take_odd(self) -> bool:
        with self._odd_lock:
            self._odd_seen += 1
            return self.odd_first is None or self._odd_seen <= self.odd_first

    def _odd_stream(self, handler: Any) -> None:
        events, drop = self.ending
        handler.start_chunked(self.content_type)
        for event in events:
            handler.chunk(event)
        if drop:
            handler.drop()
        else:
            handler.end_chunked()


class OddEndingOpenAI(_Odd, FakeOpenAIServer):
    """An OpenAI-compatible stand-in whose first streams end as ``ending`` says (raw completions)."""

    def handle_post(self, handler: Any, body: dict[str, Any]) -> None:
        if body.get("stream") is True and handler.path == "/v1/completions" and self._take_odd():
            self.record("POST", handler.path, body, {})
            self._odd_stream(handler)
            return
        super().handle_post(handler, body)


class OddEndingOllama(_Odd, FakeOllamaServer):
    """An Ollama stand-in whose first streams end as ``ending`` says."""

    content_type = "application/x-ndjson"

    def handle_post(self, handler: Any, body: dict[str, Any]) -> None:
        if handler.path == "/api/generate" and body.get("prompt") and self._take_odd():
            self._odd_stream(handler)
            return
        super().handle_post(handler, body)


class InterruptingOpenAI(FakeOpenAIServer):
    """llama-cpp-python's server with ``interrupt_requests`` on: one generation at a time (a lock), and a
    stream that sees a request waiting for the lock ends at once with ``data: [DONE]`` and no finish reason.
    Non-streamed answers are never interrupted (the server checks only between stream chunks). Its streams
    carry no usage, and it serves ``/extras/tokenize``, as llama-cpp-python does."""

    def __init__(self, behaviour: Behaviour | None = None, token_delay_s: float = 0.005) -> None:
        super().__init__(behaviour or Behaviour(send_usage=False, tokenize_path="/extras/tokenize"))
        self.token_delay_s = token_delay_s
        self._generate = threading.Lock()
        self._waiting = 0
        self._count = threading.Lock()
        self.cut = 0
        self.most_waiting = 0

    def handle_post(self, handler: Any, body: dict[str, Any]) -> None:
        if handler.path not in ("/v1/completions", "/v1/chat/completions"):
            super().handle_post(handler, body)
            return
        with self._count:
            self._waiting += 1
            self.most_waiting = max(self.most_waiting, self._waiting)
        with self._generate:
            with self._count:
                self._waiting -= 1
            if body.get("stream") is not True:
                super().handle_post(handler, body)
                return
            self._interruptible(handler, body)

    def _interruptible(self, handler: Any, body: dict[str, Any]) -> None:
        chat = handler.path == "/v1/chat/completions"
        messages = body.get("messages") or []
        prompt = str(messages[-1].get("content") if chat and messages else body.get("prompt") or "")
        self.record("POST", handler.path, body, {})
        tokens = tokenize(self.answer(prompt))
        cap = body.get("max_tokens")
        finish = "stop"
        if isinstance(cap, int) and len(tokens) > cap:
            tokens, finish = tokens[:cap], "length"

        def choice(text: str, reason: str | None) -> dict[str, Any]:
            if chat:
                return {"index": 0, "delta": {"content": text} if text else {}, "finish_reason": reason}
            return {"index": 0, "text": text, "finish_reason": reason}

        handler.start_chunked("text/event-stream")
        for token in tokens:
            handler.chunk(sse({"choices": [choice(token, None)]}))
            time.sleep(self.token_delay_s)
            with self._count:
                interrupted = self._waiting > 0
            if interrupted:  # app.py: `if interrupt_requests and llama_outer_lock.locked(): send [DONE]; cancel`
                with self._count:
                    self.cut += 1
                handler.chunk(DONE)
                handler.end_chunked()
                return
        handler.chunk(sse({"choices": [choice("", finish)]}))
        handler.chunk(DONE)
        handler.end_chunked()
