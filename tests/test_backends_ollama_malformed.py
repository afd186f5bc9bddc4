"""Badly shaped answers from an Ollama-compatible server are backend errors (transient: retried, then the
answer is stored as an error and the run is INCOMPLETE, exit 3), never a crash of the eval (exit 70)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from backend_servers import Behaviour, FakeOllamaServer, run_requests
from instruments_helpers import run_cli
from view_helpers import write_inputs

from forgegate.backends import BackendConfig, BackendError
from forgegate.core.records import GenerationRequest

DEEP = b"[" * 100_000 + b"]" * 100_000

TAGS = [b'{"models":5}', b"[]", b'{"models":["x",3]}', DEEP, b'{"models":[{"name":5,"digest":"d"}]}',
        b'{"models":' + b"9" * 5000 + b"}", b"not json"]
LINES = [DEEP + b"\n", b'{"message":"hi","done":false}\n', b'{"message":{"content":5},"done":false}\n',
         b'{"response":5,"done":false}\n', b'{"response":["a"],"done":false}\n',
         b'{"response":"' + b"a" * 10 + b'","x":' + b"9" * 5000 + b"}\n", b"[1,2]\n"]


class OddTags(FakeOllamaServer):
    """/api/tags answers ``tags``; generation is normal."""

    tags = b""

    def handle_get(self, handler: Any) -> None:
        if handler.path == "/api/tags":
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(self.tags)))
            handler.end_headers()
            handler.wfile.write(self.tags)
            return
        super().handle_get(handler)


class OddLines(FakeOllamaServer):
    """A generation stream whose first line is ``line``."""

    line = b""

    def handle_post(self, handler: Any, body: dict[str, Any]) -> None:
        self.next_generation()
        handler.start_chunked("application/x-ndjson")
        handler.chunk(self.line)
        handler.chunk(json.dumps({"response": "", "done": True, "done_reason": "stop", "eval_count": 1}).encode()
                      + b"\n")
        handler.end_chunked()


def _one(server: FakeOllamaServer) -> object:
    config = BackendConfig(model="gloss", base_urls=(server.url,))
    return run_requests("ollama", config, [GenerationRequest(prompt="q", max_tokens=3)])[0]


@pytest.mark.parametrize("tags", TAGS, ids=range(len(TAGS)))
def test_an_odd_tags_answer_is_a_backend_error(tags: bytes) -> None:
    server = OddTags()
    server.tags = tags
    with server:
        result = _one(server)
    assert isinstance(result, BackendError), result


@pytest.mark.parametrize("line", LINES, ids=range(len(LINES)))
def test_an_odd_stream_line_is_a_transient_backend_error(line: bytes) -> None:
    server = OddLines(Behaviour())
    server.line = line
    with server:
        result = _one(server)
    assert isinstance(result, BackendError) and result.transient, result


@pytest.mark.parametrize(("kind", "payload"), [("tags", b'{"models":5}'), ("line", b'{"message":"hi"}\n'),
                                               ("line", DEEP + b"\n")])
def test_the_eval_stores_errors_and_is_incomplete_not_a_crash(tmp_path: Path, kind: str, payload: bytes) -> None:
    battery, config = write_inputs(tmp_path / "in")
    server: FakeOllamaServer
    if kind == "tags":
        server = OddTags(Behaviour(models={"gloss:v10": "e" * 64}))
        server.tags = payload
    else:
        server = OddLines(Behaviour(models={"gloss:v10": "e" * 64}))
        server.line = payload
    with server:
        outcome = run_cli("eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
                          "--battery", battery, "--gate-config", config, "--store", tmp_path / "store", "--quiet",
                          "--retries", "2")
    assert "internal error" not in outcome.stderr
    if kind == "tags":  # the endpoint probe (issue 39) reads the model list once, before any run: bad input
        assert outcome.returncode == 2 and "did not answer with Ollama's model list" in outcome.stderr, outcome.stderr
        return
    assert outcome.returncode == 3, outcome.stdout + outcome.stderr
