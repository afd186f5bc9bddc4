"""The machinery under the fake model servers: a threaded HTTP server, scripted answers, fault modes.

``backend_servers.py`` builds the Ollama and OpenAI-compatible fakes on this and
re-exports everything a test needs; import from there.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOKEN_RE = re.compile(r"^\s+|\S+\s*")
FAKE_DIGEST = "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72"
FOREVER_LIMIT = 100_000
"""A "forever" stream is dropped (never finished) after this many chunks: no hung test."""


def tokenize(text: str) -> list[str]:
    """Split a scripted answer into the fake servers' tokens: ``"a b  c"`` -> ``["a ", "b  ", "c"]``."""
    return TOKEN_RE.findall(text)


@dataclass
class Behaviour:
    """How a fake server answers. Failure counters apply to generation requests only (not /api/tags)."""

    script: Mapping[str, str] = field(default_factory=dict)
    default: str = "ok"
    by_seed: Mapping[int, Mapping[str, str]] = field(default_factory=dict)
    """Seed -> prompt -> answer, before ``script``: a model whose answer depends on the request's seed."""
    honour_cap: bool = True
    forever: bool = False
    blank_chunks: bool = False
    """Stream chunks with no text and never finish: a server that keeps the connection busy, not answering."""
    blanks_between: int = 0
    """Empty chunks after each token chunk, not counted in the final token count (eval_count, usage)."""
    fail_first: int = 0
    fail_status: int = 500
    drop_first: int = 0
    truncate_first: int = 0
    cut_after: int = 2
    stall_first: int = 0
    stall_s: float = 5.0
    chunk_delay_s: float = 0.0
    tokens_per_chunk: int = 1
    models: Mapping[str, str] = field(default_factory=lambda: {"gloss:latest": FAKE_DIGEST})
    parameters: str = 'temperature 0.7\nrepeat_penalty 1.1\nstop "<|im_end|>"'
    """Ollama's ``/api/show`` ``parameters``: the model's Modelfile settings, the sampling it is served with."""
    api_key: str | None = None
    send_usage: bool = True
    """Usage in a stream (asked for with stream_options.include_usage)."""
    whole_usage: bool = True
    """Usage in a non-streamed answer (every real OpenAI-compatible server sends it)."""
    whole_delay_s: float = 0.0
    """Seconds a non-streamed answer takes (it is silent until whole)."""
    tokenize_path: str | None = None
    """Serve a tokenizer endpoint here (``/extras/tokenize``: llama-cpp-python, ``/tokenize``: llama.cpp)."""
    tokenize_bos: bool = False
    """The tokenizer endpoint puts a BOS token before every text, as some models' tokenizers do."""
    logprob_tokens: Mapping[str, list[str]] = field(default_factory=dict)
    """Answer text -> the token texts a non-streamed answer's logprobs list (default: its tokens), for a
    server whose entries do not place the text (llama-cpp-python lists ``""`` for a byte token)."""


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str]


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def send_json(handler: BaseHTTPRequestHandler, status: int, obj: Any) -> None:
    """One JSON response with its length (the fakes and the vLLM stand-in answer this way)."""
    data = json.dumps(obj).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class FakeHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def _read_body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        return body if isinstance(body, dict) else {"_raw": body}

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        self.server.owner.record("GET", self.path, {}, dict(self.headers))
        self.server.owner.handle_get(self)

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        body = self._read_body()
        self.server.owner.record("POST", self.path, body, dict(self.headers))
        self.server.owner.handle_post(self, body)

    # helpers used by the fakes
    def send_json(self, status: int, obj: Any) -> None:
        send_json(self, status, obj)

    def start_chunked(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def end_chunked(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def drop(self) -> None:
        """Cut the connection mid-stream: no terminating chunk, socket shut down."""
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client closing early is expected
            super().handle_error(request, client_address)


class FakeServer:
    """A threaded local HTTP server; use as a context manager. ``url`` is what a backend's base URL takes."""

    url_suffix = ""

    def __init__(self, behaviour: Behaviour | None = None) -> None:
        self.behaviour = behaviour or Behaviour()
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._generations = 0
        self._httpd = _HTTPServer(("127.0.0.1", 0), FakeHandler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}{self.url_suffix}"

    def __enter__(self) -> FakeServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def record(self, method: str, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(RecordedRequest(method, path, body, headers))

    def generation_requests(self) -> list[RecordedRequest]:
        """Every POST but Ollama's ``/api/show`` (asked once a run for the sampling the model is served with)."""
        return [r for r in self.requests if r.method == "POST" and r.path != "/api/show"]

    def next_generation(self) -> int:
        """Number this generation request (1-based) for the fail/drop/stall counters."""
        with self._lock:
            self._generations += 1
            return self._generations

    def answer(self, prompt: str, seed: object = None) -> str:
        by_seed = self.behaviour.by_seed.get(seed, {}) if isinstance(seed, int) else {}
        return by_seed.get(prompt, self.behaviour.script.get(prompt, self.behaviour.default))

    def plan(self, prompt: str, cap: int | None, stop: list[str],
             seed: object = None) -> tuple[Iterator[str], str, int]:
        """The chunks to stream, the finish reason and the token count, after stop strings and the cap."""
        b = self.behaviour
        text = self.answer(prompt, seed)
        if b.blank_chunks:
            return itertools.repeat("", FOREVER_LIMIT), "never", 0
        if b.forever:
            tokens = tokenize(text) or ["x"]
            tokens[-1] = tokens[-1] if tokens[-1][-1:].isspace() else tokens[-1] + " "
            return (self._group(itertools.islice(itertools.cycle(tokens), FOREVER_LIMIT))), "never", 0
        finish = "stop"
        cuts = [text.index(s) for s in stop if s and s in text]
        if cuts:
            text = text[: min(cuts)]
        tokens = tokenize(text)
        if b.honour_cap and cap is not None and cap >= 0 and len(tokens) > cap:
            tokens, finish = tokens[:cap], "length"
        return self._group(iter(tokens)), finish, len(tokens)

    def _group(self, tokens: Iterator[str]) -> Iterator[str]:
        k = self.behaviour.tokens_per_chunk
        while batch := list(itertools.islice(tokens, k)):
            yield "".join(batch)
            yield from itertools.repeat("", self.behaviour.blanks_between)

    def fault(self, handler: FakeHandler, n: int, error_body: Any) -> bool:
        """Apply the fail/stall modes to generation request ``n``; True when the request was answered."""
        b = self.behaviour
        if n <= b.stall_first:
            time.sleep(b.stall_s)
        if n <= b.fail_first:
            handler.send_json(b.fail_status, error_body)
            return True
        return False

    def stream(self, handler: FakeHandler, n: int, lines: Iterator[bytes], final: list[bytes]) -> None:
        """Write ``lines`` as HTTP chunks, then ``final`` unless this request is dropped or truncated."""
        b = self.behaviour
        cut = n <= b.drop_first or n <= b.truncate_first
        try:
            for i, line in enumerate(lines):
                if cut and i >= b.cut_after:
                    break
                handler.chunk(line)
                if b.chunk_delay_s:
                    time.sleep(b.chunk_delay_s)
            if n <= b.drop_first or b.forever or b.blank_chunks:
                handler.drop()
                return
            if not cut:
                for line in final:
                    handler.chunk(line)
            handler.end_chunked()
        except (BrokenPipeError, ConnectionResetError):
            handler.close_connection = True

    def handle_get(self, handler: FakeHandler) -> None:
        handler.send_json(404, {"error": "not found"})

    def handle_post(self, handler: FakeHandler, body: dict[str, Any]) -> None:
        handler.send_json(404, {"error": "not found"})
