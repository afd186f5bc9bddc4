"""Issue 33: an answer is only what the server said it finished. Every odd stream ending is a transient
backend error (never a stored answer), the engine's retry gets the whole answer, and an item whose stream
is always cut is an error row: the run is INCOMPLETE."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from backend_servers import Behaviour, run_requests
from stream_servers import ANSWER, OLLAMA_ENDINGS, OPENAI_ENDINGS, OddEndingOllama, OddEndingOpenAI

from forgegate.backends import BackendConfig, BackendError, make_backend
from forgegate.core.records import ENDED_BY, Completion, GenerationRequest, StoredResponse
from forgegate.run import RetryPolicy
from forgegate.run.engine import PlannedRequest, execute
from forgegate.store import RunStore

REQUEST = GenerationRequest(prompt="q", max_tokens=10, chat=False)
QUICK = RetryPolicy(attempts=3, base_delay_s=0.01, max_delay_s=0.02)


def _server(backend: str, ending: str, odd_first: int | None) -> OddEndingOpenAI | OddEndingOllama:
    behaviour = Behaviour(script={"q": ANSWER})
    server: OddEndingOpenAI | OddEndingOllama
    if backend == "openai":
        server = OddEndingOpenAI(behaviour)
        server.ending = OPENAI_ENDINGS[ending]
    else:
        server = OddEndingOllama(behaviour)
        server.ending = OLLAMA_ENDINGS[ending]
    server.odd_first = odd_first
    return server


def _config(backend: str, url: str) -> BackendConfig:
    return BackendConfig(model="gloss:latest", base_urls=(url,), timeout_s=10)


def _generate_into_store(backend: str, url: str, store_path: Path) -> StoredResponse:
    async def main() -> None:
        made = make_backend(backend, _config(backend, url))
        try:
            with RunStore.open(store_path) as store:
                await execute(store, [PlannedRequest("model", "q", None, REQUEST)], {"model": made},
                              concurrency=1, retry=QUICK)
        finally:
            await made.aclose()

    asyncio.run(main())
    with RunStore.open(store_path, readonly=True) as store:
        (row,) = store.latest()
        return row


CASES = [("openai", name) for name in OPENAI_ENDINGS] + [("ollama", name) for name in OLLAMA_ENDINGS]


@pytest.mark.parametrize(("backend", "ending"), CASES, ids=[f"{b}-{e}" for b, e in CASES])
def test_an_odd_ending_is_a_transient_error_never_an_answer(backend: str, ending: str) -> None:
    with _server(backend, ending, odd_first=1) as server:
        (outcome,) = run_requests(backend, _config(backend, server.url), [REQUEST])
    assert isinstance(outcome, BackendError), f"stored as an answer: {outcome}"
    assert outcome.transient


@pytest.mark.parametrize(("backend", "ending"), CASES, ids=[f"{b}-{e}" for b, e in CASES])
def test_the_retry_stores_the_whole_answer(backend: str, ending: str, tmp_path: Path) -> None:
    with _server(backend, ending, odd_first=1) as server:
        row = _generate_into_store(backend, server.url, tmp_path / "run.sqlite")
    assert (row.finish, row.response, row.attempts) == ("stop", ANSWER, 2)
    assert row.extra[ENDED_BY] == "stop" and not row.unconfirmed


@pytest.mark.parametrize(("backend", "ending", "why"), [
    ("openai", "done-without-finish", "sent its end marker after 2 text piece(s) without a finish_reason"),
    ("openai", "cut-chunk", "malformed stream line"),
    ("openai", "finish-abort", "finish reason 'abort'"),
    ("ollama", "no-done", "ended after 2 text piece(s) without done: true"),
])
def test_an_item_always_cut_is_an_error_row_naming_why(backend: str, ending: str, why: str, tmp_path: Path) -> None:
    with _server(backend, ending, odd_first=None) as server:
        row = _generate_into_store(backend, server.url, tmp_path / "run.sqlite")
    assert (row.finish, row.response, row.attempts) == ("error", None, QUICK.attempts)
    assert why in str(row.error)


def test_the_always_cut_item_makes_the_eval_incomplete_exit_3_naming_the_item(tmp_path: Path) -> None:
    from eval_helpers import read_json, run_cli_in_process, script_for

    from forgegate.battery import bundled_battery_path, load_battery

    battery = load_battery(bundled_battery_path())
    victim = battery.items[0]
    script = script_for(battery)

    class CutOne(OddEndingOpenAI):
        def _take_odd(self) -> bool:
            return False

        def handle_post(self, handler: object, body: dict[str, object]) -> None:
            prompt = str(body.get("prompt") or (body.get("messages") or [{}])[-1].get("content"))  # type: ignore[index]
            if body.get("stream") is True and prompt == victim.prompt:
                self._odd_stream(handler)
                return
            super().handle_post(handler, body)

    server = CutOne(Behaviour(script=script))
    server.ending = OPENAI_ENDINGS["done-without-finish"]
    with server:
        proc = run_cli_in_process("eval", "--backend", "openai", "--model", "gloss:latest", "--base-url", server.url,
                                  "--store", str(tmp_path / "runs"), "--json", str(tmp_path / "r.json"), "--quiet",
                                  "--retries", "2")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    result = read_json(tmp_path / "r.json")
    assert result["gate"] == "INCOMPLETE"
    (errored,) = [i for i in result["items"] if i["error"]]
    assert errored["id"] == victim.item_id and "without a finish_reason" in errored["error"]


def test_fewer_tokens_than_text_deltas_is_recorded_and_the_deltas_are_counted() -> None:
    """9 text deltas reported as 2 tokens: the count that cannot under-count (9) decides the cap and windows."""
    nine = " ".join(f"w{i}" for i in range(9))
    server = OddEndingOpenAI(Behaviour(script={"q": nine}))
    deltas = [b"data: " + f'{{"choices": [{{"index": 0, "text": "{t}", "finish_reason": null}}]}}'.encode() + b"\n\n"
              for t in (f"w{i} " if i < 8 else f"w{i}" for i in range(9))]
    server.ending = ([*deltas, OPENAI_ENDINGS["second-finish"][0][1], OPENAI_ENDINGS["negative-usage"][0][2]
                      .replace(b"-3", b"2"), b"data: [DONE]\n\n"], False)
    with server:
        (outcome,) = run_requests("openai", _config("openai", server.url), [REQUEST])
    assert isinstance(outcome, Completion), outcome
    assert (outcome.text, outcome.tokens, outcome.token_source) == (nine, 9, "stream-chunks")
    assert "reported 2 completion tokens for 9 text deltas" in outcome.extra["token_count_disagreement"]


def test_rescore_marks_stored_answers_without_a_server_finish_and_a_rerun_regenerates_them(tmp_path: Path) -> None:
    """Item 5: a store written before forgegate recorded what ended an answer (here: one row's record of it
    removed, as such a store holds none) is re-scored with those answers marked, and running the eval again
    generates them anew."""
    import sqlite3

    from backend_servers import FakeOllamaServer
    from eval_helpers import read_json, run_cli_in_process
    from view_helpers import ITEMS, write_inputs

    battery, config = write_inputs(tmp_path / "in")
    script = {"⊙ α?": "NOUS", "⊙ ι?": "AION", "⊙ ο?": "KOSMOS", "Translate: the forge is cold": "frg ❄",
              "Translate: the forge is warm": "frg ☀"}
    args = ["eval", "--backend", "ollama", "--model", "gloss:v10", "--battery", str(battery), "--gate-config",
            str(config), "--store", str(tmp_path / "runs"), "--quiet"]
    with FakeOllamaServer(Behaviour(script=script, models={"gloss:v10": "e" * 64})) as server:
        first = run_cli_in_process(*args, "--base-url", server.url, "--json", str(tmp_path / "first.json"))
        (store,) = (tmp_path / "runs").glob("*.sqlite")
        with sqlite3.connect(store) as db:  # what a store from before the check holds for this answer
            db.execute("UPDATE responses SET extra = NULL WHERE item_id = 'alpha'")
        rescored = run_cli_in_process("rescore", str(store), "--json", str(tmp_path / "rescored.json"))
        asked_before = len(server.generation_requests())
        again = run_cli_in_process(*args, "--base-url", server.url, "--json", str(tmp_path / "again.json"))
        asked_again = [r.body["messages"][-1]["content"] for r in server.generation_requests()[asked_before:]]
    assert first.returncode == rescored.returncode, first.stderr + rescored.stderr
    marked = {i["id"]: i["unfinished"] for i in read_json(tmp_path / "rescored.json")["items"]}
    assert marked == {item["id"]: item["id"] == "alpha" for item in ITEMS}
    assert "1 stored answer(s) have no finish reason from the server" in rescored.stderr
    assert again.returncode == first.returncode and asked_again == ["⊙ α?"]  # only that answer is generated anew
    assert not any(i["unfinished"] for i in read_json(tmp_path / "again.json")["items"])
