"""Issue 46, deliverable 4: a stand-in server composes its stream at random (``stream_fuzz``): whatever it
does, the stored answer is the text it sent, up to the cap, with a count the text can hold, or the request
is a backend error (retried, then INCOMPLETE). A clean stream (finished, within the cap, a true count or
none) is stored whole, exactly. A small example count runs in the fast lane; the 1,000-example run is slow."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from backend_servers import run_requests, tokenize
from hypothesis import HealthCheck, given, settings
from stream_fuzz import FuzzServer, Scenario, scenarios

from forgegate.backends import BackendConfig, BackendError
from forgegate.backends._tokencount import token_floor
from forgegate.core.records import ENDED_BY, Completion, GenerationRequest


@pytest.fixture(scope="module")
def server() -> Iterator[FuzzServer]:
    with FuzzServer() as running:
        yield running  # type: ignore[misc]


def check(server: FuzzServer, scenario: Scenario) -> None:
    server.scenario = scenario
    config = BackendConfig(model="gloss:latest", base_urls=(server.url,), timeout_s=10)
    request = GenerationRequest(prompt="q", max_tokens=scenario.cap, chat=False)
    (outcome,) = run_requests(scenario.backend, config, [request])
    if scenario.ending != "finished" and isinstance(outcome, Completion):  # only where forgegate ended it first
        assert outcome.extra.get(ENDED_BY) == "forgegate-cap", f"a cut stream was stored: {outcome!r}"
    elif scenario.ending != "finished":  # permanent only where forgegate read past the cap before the cut
        assert outcome.transient or "ignored the cap" in str(outcome), f"a cut stream is a permanent error: {outcome}"
    if isinstance(outcome, BackendError):
        assert not scenario.clean, f"a clean stream was refused: {outcome}"
        return
    assert isinstance(outcome, Completion)
    sent = scenario.text
    assert sent.startswith(outcome.text), f"stored {outcome.text!r}, not what the server sent ({sent!r})"
    assert 0 <= outcome.tokens <= scenario.cap
    assert outcome.tokens >= token_floor(outcome.text), f"{outcome.tokens} tokens for {outcome.text!r}"
    assert ENDED_BY in outcome.extra
    if scenario.knowable:  # never a word past the cap where the client can tell where it falls
        within = "".join(scenario.tokens[: scenario.cap])
        assert within.startswith(outcome.text), f"kept {outcome.text!r} past the cap ({within!r})"
    if scenario.clean:
        assert outcome.text == sent, f"a clean stream stored as {outcome.text!r}, sent {sent!r}"
        if scenario.usage == "honest" or scenario.tokenizer or all(g == 1 for g in scenario.groups):
            assert outcome.tokens == len(tokenize(sent)) or outcome.tokens >= token_floor(sent)


FAST = settings(max_examples=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@FAST
@given(scenario=scenarios())
def test_a_composed_stream_is_stored_as_sent_up_to_the_cap_or_is_an_error(server: FuzzServer,
                                                                           scenario: Scenario) -> None:
    check(server, scenario)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(scenario=scenarios())
def test_a_thousand_composed_streams(server: FuzzServer, scenario: Scenario) -> None:
    check(server, scenario)
