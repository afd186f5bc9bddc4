"""Deadlines and empty chunks: a server that holds a request open without answering is the server's fault.

``--timeout`` bounds the whole request (connect to last byte), ``--idle-timeout`` the longest
silence; missing either is a transient error, retried and then stored as an error (INCOMPLETE),
never a model's answer. A chunk without text is a token only when the server's own count says so.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer, FakeOpenAIServer, run_requests
from eval_helpers import read_json, run_cli, script_for

from forgegate.backends import BackendConfig, BackendError
from forgegate.battery import bundled_live_test_path, load_battery
from forgegate.core.records import Completion, GenerationRequest

LIVE = load_battery(bundled_live_test_path())
MODEL = "gloss:v10"


def one(server: FakeOllamaServer | FakeOpenAIServer, backend: str, request: GenerationRequest,
        **config: object) -> Completion | BackendError:
    cfg = BackendConfig(model=MODEL, base_urls=(server.url,), **config)  # type: ignore[arg-type]
    return run_requests(backend, cfg, [request])[0]


SERVERS = [(FakeOllamaServer, "ollama"), (FakeOpenAIServer, "openai")]


@pytest.mark.parametrize(("server_class", "backend"), SERVERS, ids=["ollama", "openai"])
def test_a_server_sending_empty_chunks_without_end_misses_the_whole_request_deadline(
        server_class: type[FakeOllamaServer], backend: str) -> None:
    behaviour = Behaviour(blank_chunks=True, chunk_delay_s=0.02, models={MODEL: "f" * 64})
    with server_class(behaviour) as server:
        result = one(server, backend, GenerationRequest(prompt="q", max_tokens=4), timeout_s=1.0)
    # bytes kept flowing (no idle timeout), no token arrived (the cap was never reached): only the deadline ends it
    assert isinstance(result, BackendError), result
    assert result.transient and "1 s deadline (--timeout)" in str(result)


def test_the_deadline_bounds_a_stream_that_keeps_producing_tokens() -> None:
    behaviour = Behaviour(forever=True, honour_cap=False, chunk_delay_s=0.02, models={MODEL: "f" * 64})
    with FakeOllamaServer(behaviour) as server:
        result = one(server, "ollama", GenerationRequest(prompt="q", max_tokens=100_000), timeout_s=0.5)
    assert isinstance(result, BackendError) and result.transient and "deadline" in str(result)


def test_the_idle_timeout_is_separate_from_the_deadline() -> None:
    behaviour = Behaviour(stall_first=1, stall_s=1.5, models={MODEL: "f" * 64})
    with FakeOllamaServer(behaviour) as server:
        result = one(server, "ollama", GenerationRequest(prompt="q", max_tokens=4), timeout_s=60.0,
                     idle_timeout_s=0.3)
    assert isinstance(result, BackendError) and result.transient
    assert "idle timeout (--idle-timeout)" in str(result) and "deadline" not in str(result)


def test_the_idle_timeout_defaults_to_the_deadline_when_that_is_shorter() -> None:
    assert BackendConfig(timeout_s=5).idle_s == 5
    assert BackendConfig(timeout_s=5, idle_timeout_s=2).idle_s == 2
    assert BackendConfig().idle_s < BackendConfig().timeout_s


def test_ollama_empty_chunks_are_not_tokens_when_eval_count_does_not_count_them() -> None:
    behaviour = Behaviour(script={"q": "a b c d e f"}, blanks_between=3, models={MODEL: "f" * 64})
    with FakeOllamaServer(behaviour) as server:
        whole = one(server, "ollama", GenerationRequest(prompt="q", max_tokens=50))
        capped = one(server, "ollama", GenerationRequest(prompt="q", max_tokens=4))
    assert isinstance(whole, Completion) and isinstance(capped, Completion)
    assert (whole.text, whole.tokens, whole.finish) == ("a b c d e f", 6, "stop")
    assert whole.token_source == "server-usage" and whole.extra["server_eval_count"] == "6"
    assert whole.token_texts == ("a ", "b ", "c ", "d ", "e ", "f")  # eval_count agrees: chunks are the tokens
    # the blanks between tokens do not fill the cap: four real tokens fit under a cap of four
    assert (capped.text, capped.tokens, capped.finish) == ("a b c d ", 4, "length")


def test_ollama_eval_count_above_the_text_chunks_is_the_token_count() -> None:
    behaviour = Behaviour(script={"q": "a b c d e f"}, tokens_per_chunk=2, models={MODEL: "f" * 64})
    with FakeOllamaServer(behaviour) as server:
        done = one(server, "ollama", GenerationRequest(prompt="q", max_tokens=50))
    assert isinstance(done, Completion)
    assert done.text == "a b c d e f" and done.tokens == 6 and done.token_source == "server-usage"
    assert done.token_texts is None  # three chunks no longer line up with six tokens


def test_a_stalling_server_makes_the_live_test_incomplete_not_a_model_that_ran_on(tmp_path: Path) -> None:
    behaviour = Behaviour(script=script_for(LIVE), blank_chunks=True, chunk_delay_s=0.05, models={MODEL: "f" * 64})
    store = tmp_path / "store"
    with FakeOllamaServer(behaviour) as server:
        proc = run_cli("live", "--backend", "ollama", "--model", MODEL, "--base-url", server.url, "--store",
                       str(store), "--json", str(tmp_path / "r.json"), "--quiet", "--concurrency", "10",
                       "--timeout", "0.5", "--retries", "2")
        sent = len(server.generation_requests())
    assert proc.returncode == 3, proc.stderr
    assert read_json(tmp_path / "r.json")["gate"] == "INCOMPLETE"
    # never more than the two attempts per item (a server starved of CPU may not have read every one)
    assert 0 < sent <= 2 * len(LIVE.items)
    with sqlite3.connect(next(store.glob("*.sqlite"))) as db:
        rows = db.execute("SELECT finish, error, attempts FROM responses").fetchall()
    assert len(rows) == len(LIVE.items)
    assert all(finish == "error" and "deadline" in error for finish, error, _ in rows), json.dumps(rows[:2])
    assert [attempts for _, _, attempts in rows] == [2] * len(LIVE.items)  # every attempt was made
