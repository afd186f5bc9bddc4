"""The openai backend against a server whose streams carry no usage: it asks such a server without streaming.

A non-streamed answer always carries ``usage``, the server's exact count, so from the first
finished stream without usage the endpoint is asked whole (that request too). The real
llama-cpp-python server is covered in test_backends_openai_llamacpp.py.
"""

from __future__ import annotations

import asyncio

import pytest
from backend_servers import Behaviour, FakeOpenAIServer, greedy, run_requests

from forgegate.backends import BackendConfig, BackendError, make_backend
from forgegate.backends.openai import before_finished_character
from forgegate.core.records import Completion, GenerationRequest

MODEL = "gloss:latest"


def config(url: str, **extra: object) -> BackendConfig:
    return BackendConfig(model=MODEL, base_urls=(url,), **extra)  # type: ignore[arg-type]


def one_by_one(backend_config: BackendConfig, requests: list[GenerationRequest]) -> list[Completion | BackendError]:
    """The requests in turn on one backend (which remembers what it found out about the endpoint)."""

    async def main() -> list[Completion | BackendError]:
        backend = make_backend("openai", backend_config)
        out: list[Completion | BackendError] = []
        try:
            for request in requests:
                try:
                    out.append(await backend.generate(request))
                except BackendError as exc:
                    out.append(exc)
        finally:
            await backend.aclose()
        return out

    return asyncio.run(main())


def streamed_flags(server: FakeOpenAIServer) -> list[bool]:
    return [bool(r.body.get("stream")) for r in server.generation_requests() if r.path.endswith("completions")]


def test_a_stream_without_usage_is_asked_again_whole_and_the_endpoint_stays_unstreamed() -> None:
    # deltas of two tokens each: counting deltas would say 3, the server's count is 6
    behaviour = Behaviour(script={"q": "é è ê ë f g", "r": "a b"}, send_usage=False, tokens_per_chunk=2)
    with FakeOpenAIServer(behaviour) as server:
        first, second = one_by_one(config(server.url), [greedy(prompt=p, max_tokens=50) for p in "qr"])
        flags = streamed_flags(server)
    assert flags == [True, False, False]  # found out once, on the first request, which is asked again
    assert isinstance(first, Completion) and isinstance(second, Completion)
    assert (first.text, first.tokens, first.token_source, first.finish) == ("é è ê ë f g", 6, "server-usage", "stop")
    assert first.extra["streamed"] == "false" and first.extra["server_completion_tokens"] == "6"
    assert first.ttft_s is None and first.token_texts is None  # no stream: no first token, no boundaries
    assert (second.text, second.tokens, second.token_source) == ("a b", 2, "server-usage")


def test_concurrent_first_requests_each_find_it_out_at_most_once() -> None:
    behaviour = Behaviour(script={"q": "a b c"}, send_usage=False)
    with FakeOpenAIServer(behaviour) as server:
        results = run_requests("openai", config(server.url), [greedy(prompt="q", max_tokens=50)] * 2)
        flags = streamed_flags(server)
    assert all(isinstance(r, Completion) and r.token_source == "server-usage" and r.tokens == 3 for r in results)
    assert flags.count(False) == 2 and flags.count(True) <= 2


def test_a_server_that_streams_usage_is_never_asked_whole() -> None:
    with FakeOpenAIServer(Behaviour(script={"q": "a b c"})) as server:
        done = one_by_one(config(server.url), [greedy(prompt="q", max_tokens=50)] * 3)
        flags = streamed_flags(server)
    assert all(isinstance(d, Completion) and d.token_source == "server-usage" and "streamed" not in d.extra
               for d in done)
    assert flags == [True] * 3


def test_a_stream_cut_at_the_client_cap_does_not_decide_the_endpoint() -> None:
    # the cap stops reading before the end, where usage would have come: nothing is learnt
    long = " ".join(f"w{i}" for i in range(30))
    behaviour = Behaviour(script={"q": long, "r": "a b"}, honour_cap=False, send_usage=False)
    with FakeOpenAIServer(behaviour) as server:
        capped, after = one_by_one(config(server.url), [greedy(prompt=p, max_tokens=4) for p in "qr"])
        flags = streamed_flags(server)
    assert isinstance(capped, Completion) and capped.finish == "length" and capped.tokens == 4
    assert capped.token_source == "stream-chunks"
    assert isinstance(after, Completion) and after.token_source == "server-usage"
    assert flags == [True, True, False]  # the second request's finished stream decided it


def test_a_whole_answer_without_usage_makes_the_endpoint_stream_again() -> None:
    behaviour = Behaviour(script={"q": "a b c"}, send_usage=False, whole_usage=False)
    with FakeOpenAIServer(behaviour) as server:
        done = one_by_one(config(server.url), [greedy(prompt="q", max_tokens=50)] * 2)
        flags = streamed_flags(server)
    assert all(isinstance(d, Completion) and d.token_source == "stream-chunks" and d.tokens == 3 for d in done)
    assert flags == [True, False, True]  # asked whole once, found no usage there, kept the streamed answer


def test_a_whole_answer_is_bounded_by_the_deadline_not_the_idle_timeout() -> None:
    behaviour = Behaviour(script={"q": "a b c"}, send_usage=False, whole_delay_s=1.0)
    with FakeOpenAIServer(behaviour) as server:
        slow = run_requests("openai", config(server.url, timeout_s=30.0, idle_timeout_s=0.3),
                            [greedy(prompt="q", max_tokens=50)])[0]
        late = run_requests("openai", config(server.url, timeout_s=0.5, idle_timeout_s=0.3),
                            [greedy(prompt="q", max_tokens=50)])[0]
    assert isinstance(slow, Completion) and slow.tokens == 3  # silent past the idle timeout, whole in time
    assert isinstance(late, BackendError) and late.transient and "0.5 s deadline (--timeout)" in str(late)


def test_a_whole_answer_past_the_cap_is_a_permanent_error() -> None:
    # without a stream there are no token boundaries to cut the answer at the cap
    behaviour = Behaviour(script={"q": "a b c d e f"}, send_usage=False, honour_cap=False)
    with FakeOpenAIServer(behaviour) as server:
        _, error = one_by_one(config(server.url), [greedy(prompt="q", max_tokens=m) for m in (50, 3)])
    assert isinstance(error, BackendError) and not error.transient and "past the cap of 3" in str(error)


def test_a_whole_answer_one_token_past_the_cap_to_finish_a_character_is_cut_before_it() -> None:
    # llama-cpp-python runs past max_tokens to finish a character the cap split, and counts those tokens
    behaviour = Behaviour(script={"q": "a b é"}, send_usage=False, honour_cap=False)
    with FakeOpenAIServer(behaviour) as server:
        _, done = one_by_one(config(server.url), [greedy(prompt="q", max_tokens=m) for m in (50, 2)])
    assert isinstance(done, Completion)
    assert (done.text, done.tokens, done.finish) == ("a b ", 2, "length")
    assert done.extra["server_exceeded_cap"] == "true" and done.extra["server_completion_tokens"] == "3"


@pytest.mark.parametrize(("text", "over", "kept"), [
    ("x ⊙", 1, "x "), ("x ⊙", 2, "x "), ("x ⊙", 3, None),  # ⊙ is three bytes: at most two tokens finish it
    ("ι is", 1, ""), ("é", 2, None), ("abc", 1, None), ("", 1, None),
])
def test_the_text_before_the_character_an_overrun_finished(text: str, over: int, kept: str | None) -> None:
    assert before_finished_character(text, over) == kept
