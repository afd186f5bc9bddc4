"""Issue 33 item 2: a server that cuts the running stream when another request arrives (llama-cpp-python's
``interrupt_requests``, modelled by ``InterruptingOpenAI``) gets fewer requests at once, down to 1; the cut
items are retried and the run ends with the answers of a run at ``--concurrency 1``, saying what it did."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from backend_servers import Behaviour
from eval_helpers import read_json, run_cli_in_process, script_for
from stream_servers import ANSWER, InterruptingOpenAI

from forgegate.backends import BackendConfig, make_backend
from forgegate.backends._http import EndpointPool
from forgegate.battery import bundled_battery_path, load_battery
from forgegate.core.records import GenerationRequest
from forgegate.store import RunStore, find_run

BATTERY = load_battery(bundled_battery_path())


def _eval(server: InterruptingOpenAI, tmp_path: Path, name: str, concurrency: int) -> tuple[int, str, dict]:  # type: ignore[type-arg]
    proc = run_cli_in_process("eval", "--backend", "openai", "--model", "gloss:latest", "--base-url", server.url,
                              "--store", str(tmp_path / name), "--json", str(tmp_path / f"{name}.json"), "--quiet",
                              "--concurrency", str(concurrency))
    return proc.returncode, proc.stderr, read_json(tmp_path / f"{name}.json")


@pytest.mark.slow  # two whole evals of the bundled battery, streamed: ~11 s, the fast lane's longest test
def test_an_interrupting_server_ends_with_the_answers_of_concurrency_1(tmp_path: Path) -> None:
    # the perfect answers, each stretched to several tokens so that streams are in flight when others arrive
    script = {prompt: f"{answer} {answer} {answer}" for prompt, answer in script_for(BATTERY).items()}
    behaviour = Behaviour(script=script, send_usage=False, tokenize_path="/extras/tokenize")
    with InterruptingOpenAI(behaviour) as serial_server:
        serial_code, _, serial = _eval(serial_server, tmp_path, "serial", 1)
    with InterruptingOpenAI(behaviour) as server:
        code, err, wide = _eval(server, tmp_path, "wide", 4)
    assert serial_server.cut == 0 and server.cut > 0  # the stand-in did cut streams at concurrency 4
    assert code == serial_code and wide["gate"] == serial["gate"]
    answers = {i["id"]: (i["response"], i["tokens"], i["finish"]) for i in wide["items"]}
    assert answers == {i["id"]: (i["response"], i["tokens"], i["finish"]) for i in serial["items"]}
    assert all(i["error"] is None for i in wide["items"])
    (line,) = [ln for ln in err.splitlines() if "stream" in ln]  # one calm line: what it saw, what it did
    assert server.url in line
    assert line.endswith(": this server answers one stream at a time; forgegate sent one at a time from then on")
    with RunStore.open(find_run(wide["run_id"], tmp_path / "wide"), readonly=True) as store:
        notes = store.meta().endpoint_notes
    assert notes is not None and any("at most 1 at a time" in note for note in notes)


def test_each_cut_at_an_endpoint_halves_what_it_gets_at_once_down_to_1() -> None:
    async def main() -> list[int | None]:
        pool = EndpointPool(("http://a",))
        limits: list[int | None] = []
        async with pool.slot() as first, pool.slot(), pool.slot(), pool.slot():
            assert pool.overlapped(first)
            limits.append(pool.lower(first))
            limits.append(pool.lower(first))  # the same burst of cuts: lowered once already
        async with pool.slot() as second, pool.slot():
            limits.append(pool.lower(second))
        async with pool.slot() as alone:
            assert not pool.overlapped(alone)
        return limits

    assert asyncio.run(main()) == [2, None, 1]


def test_once_lowered_to_1_the_endpoint_cuts_nothing_more() -> None:
    request = GenerationRequest(prompt="q", max_tokens=9, chat=False)
    with InterruptingOpenAI(Behaviour(script={"q": ANSWER}, send_usage=True)) as server:
        async def main() -> tuple[int, int, list[str]]:
            backend = make_backend("openai", BackendConfig(model="gloss:latest", base_urls=(server.url,)))
            try:
                first = await asyncio.gather(*(backend.generate(request) for _ in range(6)))
                cut_then = server.cut
                second = await asyncio.gather(*(backend.generate(request) for _ in range(6)))
            finally:
                await backend.aclose()
            return cut_then, server.cut, [c.text for c in (*first, *second)]

        cut_first, cut_total, texts = asyncio.run(main())
    assert cut_first > 0 and cut_total == cut_first  # lowered during the first burst; the second is not cut
    assert texts == [ANSWER] * 12
