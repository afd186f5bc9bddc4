"""Issue 46, minor cases in the stream code: a server that refuses every generation for good is bad input (exit 2),
not INCOMPLETE; a 200 answer that is no event stream says so, not "cut stream"; ``Retry-After`` is honoured;
a ``--base-url``'s credentials are never stored. Stand-in servers (``backend_servers``): Ollama has no binary on
the test machines."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from backend_servers import Behaviour, FakeOllamaServer, FakeOpenAIServer, run_requests

from forgegate.backends import BackendConfig, BackendError, make_backend
from forgegate.backends._http import retry_after
from forgegate.core.credentials import hide_credentials
from forgegate.core.records import GenerationRequest
from forgegate.run import RetryPolicy
from forgegate.run.engine import PlannedRequest, execute
from forgegate.store import RunStore

SCRIPT = {"⊙ α?": "NOUS", "⊙ ι?": "AION", "⊙ ο?": "KOSMOS", "Translate: the forge is cold": "frg ❄",
          "Translate: the forge is warm": "frg ☀"}


def _eval_args(tmp_path: Path) -> list[str]:
    from view_helpers import write_inputs

    battery, config = write_inputs(tmp_path / "in")
    return ["eval", "--backend", "ollama", "--model", "gloss:v10", "--battery", str(battery), "--gate-config",
            str(config), "--store", str(tmp_path / "runs"), "--quiet"]


@pytest.mark.parametrize("status", [404, 400])
def test_a_server_refusing_every_generation_for_good_is_bad_input(tmp_path: Path, status: int) -> None:
    from eval_helpers import run_cli_in_process

    behaviour = Behaviour(script=SCRIPT, models={"gloss:v10": "a" * 64}, fail_first=10_000, fail_status=status)
    with FakeOllamaServer(behaviour) as server:
        done = run_cli_in_process(*_eval_args(tmp_path), "--base-url", server.url)
    assert done.returncode == 2, done.stderr
    assert f"HTTP {status}" in done.stderr and "refused all 5 request(s)" in done.stderr


def test_one_refused_request_among_answers_stays_incomplete(tmp_path: Path) -> None:
    from eval_helpers import run_cli_in_process

    behaviour = Behaviour(script=SCRIPT, models={"gloss:v10": "a" * 64}, fail_first=1, fail_status=400)
    with FakeOllamaServer(behaviour) as server:
        done = run_cli_in_process(*_eval_args(tmp_path), "--base-url", server.url, "--concurrency", "1")
    assert done.returncode == 3, done.stderr


class NotAStream(FakeOpenAIServer):
    """Answers a streamed request with HTTP 200 and a JSON object (a proxy's error page, a server that ignores
    ``stream``)."""

    def handle_post(self, handler: Any, body: dict[str, Any]) -> None:
        if body.get("stream") is True:
            self.next_generation()
            handler.send_json(200, {"error": {"message": "upstream unavailable"}})
            return
        super().handle_post(handler, body)


def test_a_200_answer_that_is_no_event_stream_says_so() -> None:
    with NotAStream(Behaviour(script={"q": "ok"})) as server:
        (outcome,) = run_requests("openai", BackendConfig(model="gloss:latest", base_urls=(server.url,)),
                                  [GenerationRequest(prompt="q", max_tokens=5)])
    assert isinstance(outcome, BackendError) and not outcome.transient
    assert "not an event stream" in str(outcome) and "application/json" in str(outcome)
    assert "cut stream" not in str(outcome)


class Busy(FakeOpenAIServer):
    """The first generation is refused with 429 and ``Retry-After: <after>``; the rest are answered."""

    after = "7"

    def handle_post(self, handler: Any, body: dict[str, Any]) -> None:
        if self.next_generation() == 1:
            data = b'{"error": {"message": "slow down"}}'
            handler.send_response(429)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Retry-After", self.after)
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
            return
        super().handle_post(handler, body)


def _run_busy(tmp_path: Path, after: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[float], Any]:
    pauses: list[float] = []

    async def no_sleep(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr("forgegate.run.engine.asyncio.sleep", no_sleep)
    server = Busy(Behaviour(script={"q": "ok"}))
    server.after = after

    async def main() -> None:
        backend = make_backend("openai", BackendConfig(model="gloss:latest", base_urls=(server.url,)))
        try:
            with RunStore.open(tmp_path / "run.sqlite") as store:
                await execute(store, [PlannedRequest("m", "q", None, GenerationRequest(prompt="q", max_tokens=5))],
                              {"m": backend}, concurrency=1, retry=RetryPolicy(attempts=3))
        finally:
            await backend.aclose()

    with server:
        asyncio.run(main())
    with RunStore.open(tmp_path / "run.sqlite", readonly=True) as store:
        (row,) = store.latest()
    return pauses, row


def test_retry_after_is_waited_before_the_retry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pauses, row = _run_busy(tmp_path, "7", monkeypatch)
    assert pauses and pauses[0] >= 7 and row.ok and row.attempts == 2


def test_a_retry_after_past_what_forgegate_waits_ends_the_request_saying_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pauses, row = _run_busy(tmp_path, "86400", monkeypatch)
    assert pauses == [] and not row.ok and "Retry-After" in (row.error or "") and row.attempts == 1


def test_retry_after_reads_seconds_and_dates() -> None:
    assert retry_after("12") == 12.0 and retry_after(None) is None and retry_after("soon") is None
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0


def test_credentials_in_the_base_url_are_never_stored(tmp_path: Path) -> None:
    from eval_helpers import run_cli_in_process

    with FakeOllamaServer(Behaviour(script=SCRIPT, models={"gloss:v10": "a" * 64}, fail_first=1)) as server:
        url = server.url.replace("http://", "http://forge:pw-0123456789@")
        done = run_cli_in_process(*_eval_args(tmp_path), "--base-url", url, "--retries", "2", "--concurrency", "1")
    assert done.returncode != 2, done.stderr
    (store,) = (tmp_path / "runs").glob("*.sqlite")
    with sqlite3.connect(store) as db:
        kept = " ".join(str(v) for table in ("meta", "responses") for row in db.execute(f"SELECT * FROM {table}")
                        for v in row)
    assert "pw-0123456789" not in kept and "forge:" not in kept  # the first request's error row included
    assert "***@127.0.0.1" in kept
    assert hide_credentials("http://a:b@h/v1?token=t&x=1") == "http://***@h/v1?token=***&x=1"
