"""The openai backend against a scripted OpenAI-compatible SSE server that can fail on demand.

The real llama.cpp server is exercised in test_backends_openai_llamacpp.py; it cannot be
made to return 500s or drop connections, so those cases use ``FakeOpenAIServer``.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from backend_servers import Behaviour, FakeOpenAIServer, run_requests

from forgegate.backends import BackendConfig, BackendError
from forgegate.backends._http import Redactor, raise_for_status
from forgegate.backends.openai import OpenAIBackend
from forgegate.core.records import Completion, GenerationRequest
from forgegate.errors import UsageError

MODEL = "gloss:latest"
KEY = "sk-test-0123456789abcdef-secret"


def config(*urls: str, **extra: object) -> BackendConfig:
    return BackendConfig(model=MODEL, base_urls=urls, **extra)  # type: ignore[arg-type]


def ok(result: Completion | BackendError) -> Completion:
    assert isinstance(result, Completion), result
    return result


def failed(result: Completion | BackendError) -> BackendError:
    assert isinstance(result, BackendError), result
    return result


def test_chat_streams_deltas_and_prefers_server_usage() -> None:
    with FakeOpenAIServer(Behaviour(script={"hi?": "Hello there, friend."})) as server:
        request = GenerationRequest(prompt="hi?", max_tokens=20, seed=3, temperature=0.5, top_p=0.8, stop=("##",))
        done = ok(run_requests("openai", config(server.url), [request])[0])
        sent = server.generation_requests()[-1]
    assert done.text == "Hello there, friend." and done.finish == "stop"
    assert done.tokens == 3 and done.token_source == "server-usage"
    assert done.token_texts == ("Hello ", "there, ", "friend.")
    assert done.model_digest is None and done.endpoint == server.url
    assert sent.path == "/v1/chat/completions"
    assert sent.body["stream"] is True and sent.body["stream_options"] == {"include_usage": True}
    assert (sent.body["max_tokens"], sent.body["seed"], sent.body["stop"]) == (20, 3, ["##"])
    assert (sent.body["temperature"], sent.body["top_p"]) == (0.5, 0.8)


def test_raw_request_uses_completions() -> None:
    with FakeOpenAIServer(Behaviour(script={"Once upon": "a time"})) as server:
        done = ok(
            run_requests(
                "openai", config(server.url), [GenerationRequest(prompt="Once upon", max_tokens=5, chat=False)]
            )[0]
        )
        sent = server.generation_requests()[-1]
    assert done.text == "a time" and sent.path == "/v1/completions" and sent.body["prompt"] == "Once upon"


def test_usage_count_wins_over_chunk_count_when_deltas_carry_several_tokens() -> None:
    with FakeOpenAIServer(Behaviour(script={"q": "a b c d e f"}, tokens_per_chunk=2)) as server:
        done = ok(run_requests("openai", config(server.url), [GenerationRequest(prompt="q", max_tokens=50)])[0])
    assert done.tokens == 6 and done.token_source == "server-usage"
    assert done.extra["stream_chunks"] == "3" and done.token_texts is None  # chunks are not token boundaries


def test_without_usage_the_deltas_are_counted() -> None:
    with FakeOpenAIServer(Behaviour(script={"q": "a b c"}, send_usage=False, whole_usage=False)) as server:
        done = ok(run_requests("openai", config(server.url), [GenerationRequest(prompt="q", max_tokens=50)])[0])
    assert done.tokens == 3 and done.token_source == "stream-chunks" and done.finish == "stop"


@pytest.mark.parametrize("path", ["/extras/tokenize", "/tokenize"])
@pytest.mark.parametrize("bos", [False, True])
def test_without_usage_the_servers_tokenizer_counts_deltas_that_carry_several_tokens(path: str, bos: bool) -> None:
    # "é è ê ë f" in deltas of two tokens: "é è ", "ê ë ", "f": 3 deltas, 5 tokens
    behaviour = Behaviour(script={"q": "é è ê ë f"}, send_usage=False, whole_usage=False, tokens_per_chunk=2,
                          tokenize_path=path, tokenize_bos=bos)
    with FakeOpenAIServer(behaviour) as server:
        done = ok(run_requests("openai", config(server.url), [GenerationRequest(prompt="q", max_tokens=50)])[0])
        asked = [r for r in server.requests if r.path == path]
    assert done.tokens == 5 and done.token_source == "server-tokenize" and done.text == "é è ê ë f"
    assert done.token_texts == ("", "é è ", "", "ê ë ", "f")  # a delta's text comes with its last token
    assert done.extra["stream_chunks"] == "3"
    # the empty text first (it gives the BOS baseline), then each non-ASCII delta; "f" is one token unasked
    assert [next(iter(r.body.values())) for r in asked] == ["", "é è ", "ê ë "]


def test_the_tokenizer_count_past_the_cap_is_cut_at_the_cap() -> None:
    behaviour = Behaviour(script={"q": "é è ê ë f"}, send_usage=False, whole_usage=False, tokens_per_chunk=2,
                          honour_cap=False, tokenize_path="/extras/tokenize")
    with FakeOpenAIServer(behaviour) as server:
        done = ok(run_requests("openai", config(server.url), [GenerationRequest(prompt="q", max_tokens=3)])[0])
    assert done.tokens == 3 and done.finish == "length" and done.text == "é è "
    assert done.token_texts == ("", "é è ", "") and done.extra["server_exceeded_cap"] == "true"


def test_usage_in_the_stream_counts_and_the_tokenizer_only_places_the_boundaries() -> None:
    behaviour = Behaviour(script={"q": "é è ê"}, tokens_per_chunk=2, tokenize_path="/extras/tokenize")
    with FakeOpenAIServer(behaviour) as server:
        done = ok(run_requests("openai", config(server.url), [GenerationRequest(prompt="q", max_tokens=50)])[0])
    assert done.tokens == 3 and done.token_source == "server-usage"
    assert done.token_texts == ("", "é è ", "ê")


def test_usage_with_one_token_per_delta_asks_no_tokenizer() -> None:
    behaviour = Behaviour(script={"q": "é è ê"}, tokenize_path="/extras/tokenize")
    with FakeOpenAIServer(behaviour) as server:
        done = ok(run_requests("openai", config(server.url), [GenerationRequest(prompt="q", max_tokens=50)])[0])
        asked = [r for r in server.requests if r.path == "/extras/tokenize"]
    assert done.token_texts == ("é ", "è ", "ê") and asked == []


def test_client_cap_stops_a_server_that_streams_forever() -> None:
    with FakeOpenAIServer(Behaviour(script={"q": "ha"}, forever=True)) as server:
        done = ok(run_requests("openai", config(server.url), [GenerationRequest(prompt="q", max_tokens=6)])[0])
    assert done.finish == "length" and done.tokens == 6 and done.text == "ha " * 6
    assert done.token_source == "stream-chunks"


def test_client_cap_keeps_only_capped_text_when_server_ignores_max_tokens() -> None:
    long = " ".join(f"w{i}" for i in range(30))
    with FakeOpenAIServer(Behaviour(script={"q": long}, honour_cap=False)) as server:
        done = ok(
            run_requests("openai", config(server.url), [GenerationRequest(prompt="q", max_tokens=4, chat=False)])[0]
        )
    assert done.finish == "length" and done.tokens == 4 and done.text == "w0 w1 w2 w3 "


def test_server_length_finish_reads_usage_after_the_last_token() -> None:
    with FakeOpenAIServer(Behaviour(script={"q": "a b c d e"})) as server:
        done = ok(run_requests("openai", config(server.url), [GenerationRequest(prompt="q", max_tokens=3)])[0])
    assert done.finish == "length" and done.tokens == 3 and done.token_source == "server-usage"


@pytest.mark.parametrize(
    ("behaviour", "transient"),
    [
        (Behaviour(fail_first=1), True),
        (Behaviour(fail_first=1, fail_status=502), True),
        (Behaviour(fail_first=1, fail_status=429), True),
        (Behaviour(fail_first=1, fail_status=400), False),
        (Behaviour(drop_first=1, script={"q": "one two three"}), True),
        (Behaviour(truncate_first=1, script={"q": "one two three"}), True),
        (Behaviour(stall_first=1, stall_s=1.5), True),
    ],
    ids=["500", "502", "429", "400", "dropped-mid-stream", "ended-without-done", "read-timeout"],
)
def test_failure_classes(behaviour: Behaviour, transient: bool) -> None:
    with FakeOpenAIServer(behaviour) as server:
        error = failed(
            run_requests("openai", config(server.url, timeout_s=0.5), [GenerationRequest(prompt="q", max_tokens=9)])[0]
        )
        again = run_requests(
            "openai", config(server.url, timeout_s=0.5), [GenerationRequest(prompt="q", max_tokens=9)]
        )[0]
    assert error.transient is transient
    assert ok(again).text == behaviour.script.get("q", "ok")


def test_unknown_model_is_permanent() -> None:
    with FakeOpenAIServer() as server:
        error = failed(
            run_requests(
                "openai",
                BackendConfig(model="nope", base_urls=(server.url,)),
                [GenerationRequest(prompt="q", max_tokens=3)],
            )[0]
        )
    assert not error.transient and "404" in str(error)


def test_connection_refused_is_transient() -> None:
    with FakeOpenAIServer() as server:
        url = server.url
    assert failed(run_requests("openai", config(url), [GenerationRequest(prompt="q", max_tokens=3)])[0]).transient


def test_api_key_comes_from_the_environment_and_never_appears_in_results(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FG_TEST_KEY", KEY)
    with FakeOpenAIServer(Behaviour(api_key=KEY, script={"q": "fine"})) as server:
        done = ok(
            run_requests(
                "openai", config(server.url, api_key_env="FG_TEST_KEY"), [GenerationRequest(prompt="q", max_tokens=5)]
            )[0]
        )
        sent = server.generation_requests()[-1]
    assert done.text == "fine" and sent.headers["Authorization"] == f"Bearer {KEY}"
    assert KEY not in repr(done)


def test_wrong_api_key_is_permanent_and_not_echoed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(Behaviour(api_key="another-key")) as server:
        error = failed(run_requests("openai", config(server.url), [GenerationRequest(prompt="q", max_tokens=5)])[0])
    assert not error.transient and "401" in str(error) and KEY not in str(error)


def test_a_server_that_echoes_the_key_in_an_error_is_redacted() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, text=f"bad header {request.headers['Authorization']}")

    async def main() -> BackendError:
        async with httpx.AsyncClient(
            transport=httpx.MockTransport(echo), headers={"Authorization": f"Bearer {KEY}"}
        ) as c:
            response = await c.get("http://x/v1/models")
            with pytest.raises(BackendError) as caught:
                await raise_for_status(response, Redactor((KEY,)))
            return caught.value

    error = asyncio.run(main())
    assert error.transient and KEY not in str(error) and "***" in str(error)


def test_named_key_variable_that_is_unset_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FG_MISSING_KEY", raising=False)
    with pytest.raises(UsageError, match="FG_MISSING_KEY"):
        OpenAIBackend(config("http://127.0.0.1:1/v1", api_key_env="FG_MISSING_KEY"))


def test_base_url_is_required() -> None:
    with pytest.raises(UsageError, match="--base-url"):
        OpenAIBackend(BackendConfig(model=MODEL))


def test_the_only_served_model_is_used_when_none_is_named() -> None:
    with FakeOpenAIServer(Behaviour(script={"q": "yes"})) as server:
        done = ok(
            run_requests(
                "openai", BackendConfig(base_urls=(server.url,)), [GenerationRequest(prompt="q", max_tokens=3)]
            )[0]
        )
        sent = server.generation_requests()[-1]
    assert done.text == "yes" and sent.body["model"] == MODEL


def test_requests_spread_over_replicas_least_in_flight() -> None:
    slow = Behaviour(script={"q": "a b c d"}, chunk_delay_s=0.05)
    with FakeOpenAIServer(slow) as a, FakeOpenAIServer(slow) as b, FakeOpenAIServer(slow) as c:
        results = run_requests("openai", config(a.url, b.url, c.url), [GenerationRequest(prompt="q", max_tokens=9)] * 6)
        served = [len(s.generation_requests()) for s in (a, b, c)]
    assert served == [2, 2, 2]
    assert sorted(ok(r).endpoint or "" for r in results) == sorted([a.url, b.url, c.url] * 2)


def test_sequential_requests_rotate_over_replicas() -> None:
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:

        async def main() -> list[str | None]:
            backend = OpenAIBackend(config(a.url, b.url))
            try:
                return [
                    (await backend.generate(GenerationRequest(prompt="q", max_tokens=2))).endpoint for _ in range(4)
                ]
            finally:
                await backend.aclose()

        endpoints = asyncio.run(main())
    assert endpoints == [a.url, b.url, a.url, b.url]
