"""Issue 46, items 8-10: what a server sends is read within bounds of size, time and depth; Ollama's NDJSON is
split on ``\\n`` only; an Ollama-compatible server that lists the model without a digest is handled one way.

The servers here are small hand-made HTTP servers (a real one cannot be made to nest its model list 100,000 deep,
drip it one byte at a time or send 17 MiB of it); Ollama has no binary on this machine, so its cases use the
local fake (tests/backend_servers.py). Every wait is bounded (``asyncio.wait_for``), so a regression fails, never
hangs the suite.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import run_cli_in_process

from forgegate.backends._http import Redactor, iter_ndjson, post_whole
from forgegate.backends.base import BackendConfig, BackendError
from forgegate.backends.ollama import OllamaBackend
from forgegate.backends.preflight import preflight
from forgegate.core.limits import MAX_SERVER_BODY_BYTES
from forgegate.errors import UsageError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "batteries"
Answer = Callable[[BaseHTTPRequestHandler], None]


@contextmanager
def serving(answer: Answer) -> Iterator[str]:
    """A local HTTP server whose every GET and POST is answered by ``answer``; yields its ``/v1`` base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            with suppress(BrokenPipeError, ConnectionResetError):
                answer(self)

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.do_GET()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def send(handler: BaseHTTPRequestHandler, body: bytes, *, length: int | None = None) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body) if length is None else length))
    handler.end_headers()
    handler.wfile.write(body)


def nested(handler: BaseHTTPRequestHandler) -> None:
    send(handler, b'{"data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")


def dripped(handler: BaseHTTPRequestHandler) -> None:
    """A model list sent one byte every 0.2 s (never silent past the idle timeout, never done within --timeout)."""
    body = b'{"data": [{"id": "m"}]}' + b" " * 10_000
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    for byte in body[:300]:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.2)


def oversized(handler: BaseHTTPRequestHandler) -> None:
    """A model list of 17 MiB, sent without a Content-Length (close-delimited): only counting the bytes finds it."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Connection", "close")
    handler.end_headers()
    entry = b'{"id": "' + b"m" * 1000 + b'"},'
    handler.wfile.write(b'{"data": [')
    for _ in range(MAX_SERVER_BODY_BYTES // len(entry) + 1024):
        handler.wfile.write(entry)
    handler.wfile.write(b'{"id": "m"}]}')


def probe(url: str, *, timeout_s: float = 600.0, idle_s: float | None = None) -> object:
    config = BackendConfig(model="m", base_urls=(url,), timeout_s=timeout_s, idle_timeout_s=idle_s)
    return asyncio.run(asyncio.wait_for(preflight("openai", config), 60))


def test_a_model_list_nested_100000_deep_is_bad_input_with_what_to_do_not_exit_70(tmp_path: Path) -> None:
    with serving(nested) as url:
        proc = run_cli_in_process("eval", "--battery", str(EXAMPLES / "tiny.jsonl"), "--gate-config",
                                  str(EXAMPLES / "tiny-gate.toml"), "--backend", "openai", "--model", "m",
                                  "--base-url", url, "--store", str(tmp_path / "store"), "--quiet")
    out = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 2, out
    assert "Traceback" not in out and f"{url}/models" in out and "nested" in out and "--base-url" in out


def test_a_model_list_dripped_one_byte_at_a_time_misses_the_timeout_instead_of_hanging() -> None:
    with serving(dripped) as url, pytest.raises(UsageError) as caught:
        probe(url, timeout_s=1.5, idle_s=1.0)
    assert "1.5 s deadline (--timeout)" in str(caught.value)


def test_a_model_list_over_the_size_bound_is_refused_before_it_is_held() -> None:
    with serving(oversized) as url, pytest.raises(UsageError) as caught:
        probe(url)
    assert f"more than {MAX_SERVER_BODY_BYTES // (1024 * 1024)} MiB" in str(caught.value)


def test_a_declared_length_over_the_bound_is_refused_without_reading_the_body() -> None:
    with serving(lambda h: send(h, b"{}", length=300 * 1024 * 1024)) as url, pytest.raises(UsageError) as caught:
        probe(url)
    assert "declares 314,572,800 bytes" in str(caught.value)


def test_a_non_streamed_answer_over_the_size_bound_is_a_transient_error_not_held_whole() -> None:
    """Item 9: an answer asked whole (a server whose streams carry no usage) is read within the same bound."""
    text = "x" * (MAX_SERVER_BODY_BYTES + 1)
    body = json.dumps({"choices": [{"text": text, "finish_reason": "stop"}], "usage": {"completion_tokens": 1}})

    async def ask(url: str) -> object:
        async with httpx.AsyncClient() as client:
            return await asyncio.wait_for(post_whole(client, url, "/completions", {}, Redactor(), 60.0), 60)

    with serving(lambda h: send(h, body.encode())) as url, pytest.raises(BackendError) as caught:
        asyncio.run(ask(url))
    assert caught.value.transient and "MiB" in str(caught.value)


def test_a_non_streamed_answer_nested_too_deep_is_a_malformed_answer() -> None:
    async def ask(url: str) -> object:
        async with httpx.AsyncClient() as client:
            return await asyncio.wait_for(post_whole(client, url, "/completions", {}, Redactor(), 60.0), 60)

    with serving(lambda h: send(h, b"[" * 100_000 + b"]" * 100_000)) as url, pytest.raises(BackendError) as caught:
        asyncio.run(ask(url))
    assert caught.value.transient and "nested" in str(caught.value)


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x1c", "\x0b"])
def test_ollama_ndjson_is_split_on_the_newline_byte_only(separator: str) -> None:
    """Item 10: JSON allows these unescaped inside a string; ``str.splitlines`` broke the line at them."""
    lines = [{"response": f"Paris{separator}is", "done": False}, {"response": "", "done": True}]
    body = "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in lines).encode("utf-8")

    async def read() -> list[dict[str, object]]:
        response = httpx.Response(200, content=body)
        return [obj async for obj in iter_ndjson(response)]

    assert asyncio.run(read()) == lines


def test_an_ollama_server_listing_the_model_without_a_digest_is_served_with_no_digest_by_probe_and_run() -> None:
    """Item 10: the probe accepted it (digest None) and the backend then refused it as "not found" (exit 3); both
    now say the same: the model is served, it has no digest (docs/project/security.md says what that costs)."""
    with FakeOllamaServer(Behaviour(models={"gloss:latest": None})) as server:  # type: ignore[dict-item]
        config = BackendConfig(model="gloss", base_urls=(server.url,))
        served = asyncio.run(asyncio.wait_for(preflight("ollama", config), 60))
        backend = OllamaBackend(config)

        async def digest() -> str | None:
            try:
                return await asyncio.wait_for(backend.model_digest(), 60)
            finally:
                await backend.aclose()

        assert served is not None and served.digest is None
        assert asyncio.run(digest()) is None


@pytest.mark.parametrize("reader", ["ndjson", "sse"])
def test_a_stream_line_that_never_ends_is_refused_at_the_line_bound_not_held(reader: str) -> None:
    """A server that never sends its newline: the line is refused once it passes ``MAX_STREAM_LINE_BYTES``."""
    from forgegate.backends._http import iter_sse_data
    from forgegate.core.limits import MAX_STREAM_LINE_BYTES

    prefix = b'{"response": "' if reader == "ndjson" else b'data: {"choices": [{"text": "'
    chunks = [prefix] + [b"x" * 65536] * (MAX_STREAM_LINE_BYTES // 65536 + 2)

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def read() -> None:
        response = httpx.Response(200, content=body(), request=httpx.Request("POST", "http://server/x"))
        lines = iter_ndjson(response) if reader == "ndjson" else iter_sse_data(response)
        async for _ in lines:
            pass

    with pytest.raises(BackendError) as caught:
        asyncio.run(asyncio.wait_for(read(), 60))
    assert caught.value.transient and "without a newline" in str(caught.value)
