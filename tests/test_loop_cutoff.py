"""A loop is cut off as it starts: the stop predicate, the HTTP streams, the engine, scoring, the store, the CLI.

The HTTP backends are tested against the local fake servers of tests/backend_servers.py: the Ollama one
speaks Ollama's documented API (/api/tags, streamed NDJSON /api/chat and /api/generate), the other an
OpenAI-compatible SSE API; there is no Ollama binary on the test machines. Real models: test_loop_cutoff_models.py.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer, FakeOpenAIServer, run_requests
from checks_helpers import completion, item
from eval_helpers import read_json, script_for
from eval_helpers import run_cli_in_process as run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from forgegate.backends import BackendConfig
from forgegate.backends._http import StreamEvent, collect_capped
from forgegate.battery import bundled_battery_path, load_battery
from forgegate.checks import score_item
from forgegate.checks.loop_stop import loop_finding, loop_stop
from forgegate.checks.loops import detect_loop, query_symbol_of
from forgegate.core.modes import FailureMode
from forgegate.core.records import Completion, FinishReason, GenerationRequest, StreamStop
from forgegate.run import ExecutionSummary, PlannedRequest, execute
from forgegate.store import RunMeta, RunStore

LOOPING = "Here is the answer. " + "la femme, " * 300
"""A scripted answer that starts well and then loops to the cap and past it."""
PLAIN = "The forge is running and the crew is ready for the next watch."


async def _events(tokens: Sequence[str]) -> AsyncIterator[StreamEvent]:
    for token in tokens:
        yield StreamEvent(token=token)
    yield StreamEvent(finish="stop", done=True)


def _stream(tokens: Sequence[str], prompt: str, cap: int) -> tuple[str, tuple[str, ...], bool, StreamStop]:
    stop = loop_stop(prompt)
    got = asyncio.run(collect_capped(_events(tokens), cap, 0.0, stop))
    return got.text, tuple(got.token_texts), got.looped, stop


# --- the predicate -----------------------------------------------------------------------------------------------


def test_checks_thin_out_as_the_answer_grows_so_a_long_stream_costs_few_full_checks() -> None:
    stop = StreamStop(lambda text, tokens: False)
    due = [n for n in range(1, 4001) if stop.due(n)]
    assert due[:4] == [4, 8, 12, 16]  # a loop in a short answer is caught within 4 tokens
    assert len(due) < 120  # O(log n) past the start, not one per token (4000)
    gaps = [b - a for a, b in zip(due, due[1:], strict=False)]
    assert all(gap <= max(4, a // 16) + 1 for a, gap in zip(due, gaps, strict=False))


WORDS = [" the", " forge", " is", " running", ",", " crew", " α", " ⊙", "\n", " 1", ".", " la", " femme"]


@st.composite
def answers(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A token stream: some ordinary words, sometimes a unit repeated many times, then more words."""
    head = draw(st.lists(st.sampled_from(WORDS), max_size=30))
    unit = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
    repeats = draw(st.integers(min_value=0, max_value=30))
    tail = draw(st.lists(st.sampled_from(WORDS), max_size=20))
    prompt = draw(st.sampled_from(["⊙ α?", "List the crew.", "⊹: ⊙ ⊙?"]))
    return prompt, [*head, *(unit * repeats), *tail]


@settings(max_examples=150, deadline=None)
@given(answers(), st.integers(min_value=8, max_value=200))
def test_a_cut_off_answer_is_found_looping_with_the_same_label_by_the_detector_scoring_uses(
    case: tuple[str, list[str]], cap: int
) -> None:
    prompt, tokens = case
    text, kept, looped, _stop = _stream(tokens, prompt, cap)
    whole = "".join(tokens[:cap])
    assert whole.startswith(text)
    if not looped:
        return
    assert len(kept) < cap
    finding = detect_loop(text, kept, query_symbol=query_symbol_of(prompt))
    assert finding is not None and finding == loop_finding(prompt, text, kept)
    scored = score_item(item(prompt=prompt, max_tokens=cap, eval_type="contains", expected="NOUS"), Completion(
        text=text, tokens=len(kept), token_source="stream-chunks", finish="loop", latency_s=0.0, token_texts=kept))
    assert scored.score == 0.0 and scored.failure_modes[0] == finding.kind
    assert FailureMode.STOP_FAILURE not in scored.failure_modes


def test_a_loop_is_cut_within_a_few_tokens_and_a_plain_answer_is_never_cut() -> None:
    tokens = [" Here", " is", " the", " answer", "."] + [" la", " femme", ","] * 200
    text, kept, looped, stop = _stream(tokens, "Translate: the woman", 512)
    assert looped and len(kept) <= 40, len(kept)
    assert detect_loop(text, kept) is not None
    assert stop.checks <= 10
    plain = [f" {w}" for w in PLAIN.split()]
    text, kept, looped, _ = _stream(plain, "Say something", 512)
    assert not looped and text == "".join(plain)


def test_an_identity_loop_is_cut_off_as_an_identity_loop() -> None:
    tokens = [" ⊙", " α", " is", " "] + ["α"] * 100  # the queried symbol escalating: αααα...
    text, kept, looped, _ = _stream(tokens, "⊙ α?", 300)
    assert looped and len(kept) < 20
    it = item(prompt="⊙ α?", max_tokens=300, eval_type="contains", expected="NOUS")
    scored = score_item(it, completion(text, finish="loop", token_texts=list(kept)))
    assert scored.failure_modes == (FailureMode.IDENTITY_LOOP,) and scored.score == 0.0


# --- scoring a stored 'loop' answer -------------------------------------------------------------------------------


def test_finish_loop_is_scored_by_its_loop_not_as_a_stop_failure_even_where_stop_is_demanded() -> None:
    text = "Here is the answer. " + "la femme, " * 6
    stop_item = item(category="LX-STOP", prompt="Say hi.", stop_within=20, max_tokens=200, eval_type="contains",
                     expected="hi")
    scored = score_item(stop_item, completion(text, finish="loop"))
    assert scored.failure_modes == (FailureMode.RUNAWAY_LOOP,) and scored.score == 0.0
    assert "did not stop" not in scored.detail


def test_a_loop_answer_the_detector_no_longer_confirms_is_a_stop_failure_that_says_to_generate_again() -> None:
    scored = score_item(item(prompt="Say hi.", eval_type="contains", expected="Hello"),
                        completion("Hello there, friend.", finish="loop"))
    assert scored.score == 0.0 and scored.failure_modes == (FailureMode.STOP_FAILURE,)
    assert "finds no loop in it now" in scored.detail


# --- the HTTP backends close the stream ---------------------------------------------------------------------------


@pytest.mark.parametrize("server_type", [FakeOllamaServer, FakeOpenAIServer])
def test_http_backends_close_a_looping_stream_and_keep_what_streamed(server_type: type) -> None:
    prompt = "Translate: the woman"
    behaviour = Behaviour(script={prompt: LOOPING, "plain": PLAIN}, models={"gloss:latest": "f" * 64},
                          chunk_delay_s=0.002)
    backend = "ollama" if server_type is FakeOllamaServer else "openai"
    with server_type(behaviour) as server:
        config = BackendConfig(model="gloss" if backend == "ollama" else "gloss:latest", base_urls=(server.url,))
        (cut,) = run_requests(backend, config, [GenerationRequest(prompt=prompt, max_tokens=400)],
                              stops=[loop_stop(prompt)])
        (plain,) = run_requests(backend, config, [GenerationRequest(prompt="plain", max_tokens=400)],
                                stops=[loop_stop("plain")])
        (whole,) = run_requests(backend, config, [GenerationRequest(prompt=prompt, max_tokens=400)])
    assert isinstance(cut, Completion) and isinstance(plain, Completion) and isinstance(whole, Completion)
    assert cut.finish == "loop" and cut.tokens < 40 and LOOPING.startswith(cut.text)
    assert cut.token_texts is not None and "".join(cut.token_texts) == cut.text
    assert loop_finding(prompt, cut.text, cut.token_texts) is not None
    assert plain.finish == "stop" and plain.text == PLAIN
    assert whole.finish == "length" and whole.tokens == 400  # without the predicate it runs to the cap


# --- the engine ---------------------------------------------------------------------------------------------------


class _Scripted:
    """A backend that answers from a list, honouring ``stop`` the way a streaming backend does."""

    name = "scripted"
    config = BackendConfig()

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.calls: list[bool] = []

    async def generate(self, request: GenerationRequest, stop: StreamStop | None = None) -> Completion:
        self.calls.append(stop is not None)
        got = await collect_capped(_events(self.tokens), request.max_tokens, 0.0, stop)
        finish: FinishReason = "loop" if got.looped else "length" if got.capped else "stop"
        return Completion(text=got.text, tokens=len(got.token_texts), token_source="stream-chunks", finish=finish,
                          latency_s=0.0, token_texts=tuple(got.token_texts))

    async def model_digest(self) -> str | None:
        return None

    async def aclose(self) -> None:
        return None


def _execute(tmp_path: Path, backend: _Scripted, check: StreamStop | None,
             cap: int = 300) -> tuple[ExecutionSummary, RunStore]:
    planned = [PlannedRequest("model", "I-1", 0, GenerationRequest(prompt="Translate: the woman", max_tokens=cap))]
    store = RunStore.open(tmp_path / "run.sqlite")
    store.init_meta(RunMeta(kind="eval"))
    summary = asyncio.run(execute(store, planned, {"model": backend}, stop_for=(lambda p: check) if check else None))
    return summary, store


def test_the_engine_records_a_cut_off_answer_and_the_tokens_it_saved_and_resume_keeps_it(tmp_path: Path) -> None:
    backend = _Scripted([" Here", " it", " is", "."] + [" la", " femme", ","] * 200)
    summary, store = _execute(tmp_path, backend, loop_stop("Translate: the woman"))
    (row,) = store.latest()
    assert row.finish == "loop" and row.ok and row.tokens is not None and row.tokens < 40
    assert summary.loops_cut == 1 and summary.tokens_saved == 300 - row.tokens
    assert store.finished_keys() == {"model/I-1/0"}
    again = asyncio.run(execute(store, [PlannedRequest("model", "I-1", 0, row.request)], {"model": backend},
                                stop_for=lambda p: loop_stop("Translate: the woman")))
    assert again.generated == 0 and again.skipped_finished == 1 and backend.calls == [True]
    store.close()


def test_a_cut_off_the_predicate_does_not_confirm_on_the_stored_answer_is_generated_again_whole(tmp_path: Path) -> None:
    fired = {"n": 0}

    def once(text: str, tokens: Sequence[str] | None) -> bool:  # fires in the stream, then never again
        fired["n"] += 1
        return fired["n"] == 1

    backend = _Scripted([" a", " b", " c", " d", " e", " f"])
    summary, store = _execute(tmp_path, backend, StreamStop(once, every=2))
    (row,) = store.latest()
    assert backend.calls == [True, False]
    assert row.finish == "stop" and row.response == " a b c d e f"
    assert summary.loops_cut == 0
    store.close()


# --- the CLI ------------------------------------------------------------------------------------------------------

BATTERY = load_battery(bundled_battery_path())


def test_eval_cuts_looping_answers_off_and_gives_the_same_verdict_as_with_no_loop_cutoff(tmp_path: Path) -> None:
    looping = [i for i in BATTERY.items if i.category == "LX-A"][:3]
    script = script_for(BATTERY, {i.prompt: LOOPING for i in looping})
    results = {}
    with FakeOllamaServer(Behaviour(script=script, models={"gloss:v10": "f" * 64})) as server:
        for arm, flags in (("on", []), ("off", ["--no-loop-cutoff"])):
            proc = run_cli("eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
                           "--store", str(tmp_path / arm), "--json", str(tmp_path / f"{arm}.json"), "--quiet",
                           "--concurrency", "8", *flags)
            results[arm] = (proc, read_json(tmp_path / f"{arm}.json"))
    (on_proc, on), (off_proc, off) = results["on"], results["off"]
    assert on_proc.returncode == off_proc.returncode == 1, on_proc.stdout + on_proc.stderr
    assert on["gate"] == off["gate"] == "FAIL"
    by_id = {r["id"]: r for r in on["items"]}
    for item_ in looping:
        got = by_id[item_.item_id]
        assert got["finish"] == "loop" and got["tokens"] < 40 and got["failure_modes"][0] == "RUNAWAY_LOOP"
        assert got["score"] == 0.0
    off_by_id = {r["id"]: r for r in off["items"]}
    assert all(off_by_id[i.item_id]["finish"] == "length" for i in looping)
    assert {r["id"]: (r["score"], r["failure_mode"]) for r in on["items"]} == {
        r["id"]: (r["score"], r["failure_mode"]) for r in off["items"]}
    assert on["loop_cutoff"]["enabled"] is True and on["loop_cutoff"]["cut"] == len(looping)
    assert on["loop_cutoff"]["tokens_saved_estimate"] == sum(
        i.max_tokens - by_id[i.item_id]["tokens"] for i in looping)
    assert off["loop_cutoff"] == {"enabled": False, "cut": 0, "tokens_saved_estimate": 0}
    assert "cut off 3 looping answers" in on_proc.stderr
    with sqlite3.connect(next((tmp_path / "on").glob("*.sqlite"))) as db:
        finishes = [r[0] for r in db.execute("SELECT finish FROM responses")]
    assert finishes.count("loop") == len(looping)
    rescored = run_cli("rescore", str(next((tmp_path / "on").glob("*.sqlite"))), "--json", str(tmp_path / "re.json"))
    again = read_json(tmp_path / "re.json")
    assert rescored.returncode == 1 and again["items"] == on["items"] and again["loop_cutoff"] == on["loop_cutoff"]


def test_the_python_api_takes_loop_cutoff_and_records_it(tmp_path: Path) -> None:
    import forgegate

    looping = next(i for i in BATTERY.items if i.category == "LX-A")
    script = script_for(BATTERY, {looping.prompt: LOOPING})
    with FakeOllamaServer(Behaviour(script=script, models={"gloss:v10": "f" * 64})) as server:
        off = forgegate.evaluate(backend="ollama", model="gloss:v10", base_urls=[server.url], store=tmp_path / "off",
                                 concurrency=8, loop_cutoff=False)
        on = forgegate.evaluate(backend="ollama", model="gloss:v10", base_urls=[server.url], store=tmp_path / "on",
                                concurrency=8)
    assert off.loop_cutoff is not None and off.loop_cutoff.enabled is False and off.loop_cutoff.cut == 0
    assert on.loop_cutoff is not None and on.loop_cutoff.enabled is True and on.loop_cutoff.cut == 1
    assert on.gate == off.gate
