"""The ollama backend against a local server that speaks Ollama's documented native API.

There is no Ollama binary on these machines: ``FakeOllamaServer`` (tests/backend_servers.py)
implements /api/tags, /api/generate and /api/chat as docs/api.md describes them, including
"an empty prompt on /api/generate loads the model and returns no text".
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from backend_servers import FAKE_DIGEST, Behaviour, FakeOllamaServer, run_requests

from forgegate.backends import BackendConfig, BackendError
from forgegate.backends.ollama import OllamaBackend, normalise_model_name, parse_ollama_host
from forgegate.core.records import Completion, GenerationRequest
from forgegate.errors import UsageError

ANSWER = "The answer is four, of course."


def one(server: FakeOllamaServer, request: GenerationRequest, **config: object) -> Completion | BackendError:
    cfg = BackendConfig(model="gloss", base_urls=(server.url,), **config)  # type: ignore[arg-type]
    return run_requests("ollama", cfg, [request])[0]


def ok(result: Completion | BackendError) -> Completion:
    assert isinstance(result, Completion), result
    return result


def failed(result: Completion | BackendError) -> BackendError:
    assert isinstance(result, BackendError), result
    return result


def test_chat_request_counts_with_eval_count_and_records_the_digest() -> None:
    with FakeOllamaServer(Behaviour(script={"2+2?": ANSWER})) as server:
        request = GenerationRequest(prompt="2+2?", max_tokens=50, seed=7, temperature=0.3, top_p=0.9, stop=("#",))
        done = ok(one(server, request))
        sent = server.generation_requests()[-1]
    assert done.text == ANSWER and done.finish == "stop"
    assert done.tokens == 6 and done.token_texts == ("The ", "answer ", "is ", "four, ", "of ", "course.")
    assert done.token_source == "server-usage" and done.extra["server_eval_count"] == "6"
    assert done.model_digest == FAKE_DIGEST and done.endpoint == server.url
    assert done.ttft_s is not None and done.ttft_s <= done.latency_s
    assert sent.path == "/api/chat" and sent.body["stream"] is True
    assert sent.body["messages"] == [{"role": "user", "content": "2+2?"}]
    assert sent.body["options"] == {"num_predict": 50, "seed": 7, "temperature": 0.3, "top_p": 0.9, "stop": ["#"]}


def test_eval_count_wins_over_chunks_that_carry_several_tokens() -> None:
    with FakeOllamaServer(Behaviour(script={"q": "a b c d e f"}, tokens_per_chunk=2)) as server:
        done = ok(one(server, GenerationRequest(prompt="q", max_tokens=50)))
    assert done.tokens == 6 and done.token_source == "server-usage" and done.text == "a b c d e f"
    assert done.token_texts is None  # three chunks are not the boundaries of six tokens


def test_raw_request_uses_generate_without_template() -> None:
    with FakeOllamaServer(Behaviour(script={"Once upon": "a time"})) as server:
        done = ok(one(server, GenerationRequest(prompt="Once upon", max_tokens=5, chat=False)))
        sent = server.generation_requests()[-1]
    assert done.text == "a time"
    assert sent.path == "/api/generate" and sent.body["prompt"] == "Once upon" and sent.body["raw"] is True


def test_empty_prompt_reaches_the_model_through_chat() -> None:
    with FakeOllamaServer(Behaviour(script={"": "Please ask a question."})) as server:
        # Control: the documented /api/generate answer to an empty prompt is "model loaded", no text.
        direct = httpx.post(f"{server.url}/api/generate", json={"model": "gloss", "prompt": ""}).json()
        done = ok(one(server, GenerationRequest(prompt="", max_tokens=20, chat=False)))
        sent = server.generation_requests()[-1]
    assert direct["done"] is True and direct["response"] == ""
    assert sent.path == "/api/chat"
    assert done.text == "Please ask a question." and done.tokens == 4


def test_client_cap_stops_a_server_that_streams_forever() -> None:
    with FakeOllamaServer(Behaviour(script={"loop": "la Femme,"}, forever=True)) as server:
        done = ok(one(server, GenerationRequest(prompt="loop", max_tokens=7)))
    assert done.finish == "length" and done.tokens == 7
    assert done.text == "la Femme, la Femme, la Femme, la " and "".join(done.token_texts or ()) == done.text


def test_client_cap_keeps_only_capped_text_when_server_ignores_num_predict() -> None:
    long = " ".join(f"w{i}" for i in range(40))
    with FakeOllamaServer(Behaviour(script={"go": long}, honour_cap=False)) as server:
        done = ok(one(server, GenerationRequest(prompt="go", max_tokens=5)))
    assert done.finish == "length" and done.tokens == 5 and done.text == "w0 w1 w2 w3 w4 "


def test_server_length_finish_is_mapped_and_an_answer_exactly_at_the_cap_is_a_stop() -> None:
    with FakeOllamaServer(Behaviour(script={"long": "a b c d e f", "exact": "a b c"})) as server:
        cut, exact = run_requests(
            "ollama",
            BackendConfig(model="gloss", base_urls=(server.url,)),
            [GenerationRequest(prompt="long", max_tokens=3), GenerationRequest(prompt="exact", max_tokens=3)],
        )
    assert ok(cut).finish == "length" and ok(cut).extra["server_done_reason"] == "length"
    assert ok(exact).finish == "stop" and ok(exact).tokens == 3


@pytest.mark.parametrize(
    ("behaviour", "what"),
    [
        (Behaviour(fail_first=1), "HTTP 500"),
        (Behaviour(fail_first=1, fail_status=503), "HTTP 503"),
        (Behaviour(drop_first=1, script={"q": "one two three four"}), "connection"),
        (Behaviour(truncate_first=1, script={"q": "one two three four"}), "without done"),
        (Behaviour(stall_first=1, stall_s=1.5), "timeout"),
    ],
    ids=["500", "503", "dropped-mid-stream", "ended-without-done", "read-timeout"],
)
def test_server_faults_are_transient_and_the_retry_succeeds(behaviour: Behaviour, what: str) -> None:
    with FakeOllamaServer(behaviour) as server:
        request = GenerationRequest(prompt="q", max_tokens=10)
        first = failed(one(server, request, timeout_s=0.5))
        second = ok(one(server, request, timeout_s=0.5))
    assert first.transient and what in str(first)
    assert second.text == behaviour.script.get("q", "ok")


def test_connection_refused_is_transient() -> None:
    with FakeOllamaServer() as server:
        url = server.url
    error = failed(
        run_requests(
            "ollama", BackendConfig(model="gloss", base_urls=(url,)), [GenerationRequest(prompt="q", max_tokens=3)]
        )[0]
    )
    assert error.transient


def test_unknown_model_is_a_permanent_error_naming_the_pull_command() -> None:
    with FakeOllamaServer() as server:
        result = run_requests(
            "ollama",
            BackendConfig(model="gloss:v10", base_urls=(server.url,)),
            [GenerationRequest(prompt="q", max_tokens=3)],
        )[0]
    error = failed(result)
    assert not error.transient and "ollama pull gloss:v10" in str(error)


def test_model_not_found_status_during_generation_is_permanent() -> None:
    # /api/tags lists the model but /api/generate no longer finds it (deleted in between): 404.
    class Vanishing(FakeOllamaServer):
        def handle_post(self, handler, body):  # type: ignore[no-untyped-def]
            handler.send_json(404, {"error": f'model "{body.get("model")}" not found, try pulling it first'})

    with Vanishing() as server:
        error = failed(one(server, GenerationRequest(prompt="q", max_tokens=3)))
    assert not error.transient and "HTTP 404" in str(error)


def test_tag_normalisation_matches_ollama() -> None:
    assert normalise_model_name("gloss") == "gloss:latest"
    assert normalise_model_name("gloss:v10") == "gloss:v10"
    assert normalise_model_name("registry.local:5000/ns/gloss") == "registry.local:5000/ns/gloss:latest"
    models = {"gloss:latest": "d1", "gloss:v10": "d2"}
    with FakeOllamaServer(Behaviour(models=models)) as server:
        latest = ok(
            run_requests(
                "ollama",
                BackendConfig(model="gloss", base_urls=(server.url,)),
                [GenerationRequest(prompt="q", max_tokens=3)],
            )[0]
        )
        v10 = ok(
            run_requests(
                "ollama",
                BackendConfig(model="gloss:v10", base_urls=(server.url,)),
                [GenerationRequest(prompt="q", max_tokens=3)],
            )[0]
        )
    assert latest.model_digest == "d1" and v10.model_digest == "d2"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", "http://127.0.0.1:11434"),
        ("127.0.0.1:9999", "http://127.0.0.1:9999"),
        ("gpu-box", "http://gpu-box:11434"),
        ("0.0.0.0", "http://0.0.0.0:11434"),
        (":8080", "http://127.0.0.1:8080"),
        ("http://gpu-box", "http://gpu-box:80"),
        ("https://ollama.example.com", "https://ollama.example.com:443"),
        ("http://gpu-box:1234/", "http://gpu-box:1234"),
        ("[::1]:11435", "http://[::1]:11435"),
        ("::1", "http://[::1]:11434"),
    ],
)
def test_ollama_host_is_read_as_ollama_reads_it(value: str, expected: str) -> None:
    assert parse_ollama_host(value) == expected


def test_ollama_host_without_scheme_is_used_when_no_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOllamaServer(Behaviour(script={"q": "from env"})) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url.removeprefix("http://"))
        done = ok(
            run_requests("ollama", BackendConfig(model="gloss"), [GenerationRequest(prompt="q", max_tokens=5)])[0]
        )
    assert done.text == "from env" and done.endpoint == server.url


def test_replicas_share_the_load_and_each_completion_names_its_endpoint() -> None:
    slow = Behaviour(script={"q": "a b c"}, chunk_delay_s=0.05)
    with FakeOllamaServer(slow) as one_server, FakeOllamaServer(slow) as two_server:
        config = BackendConfig(model="gloss", base_urls=(one_server.url, two_server.url))
        results = run_requests("ollama", config, [GenerationRequest(prompt="q", max_tokens=5)] * 4)
        served = (len(one_server.generation_requests()), len(two_server.generation_requests()))
    assert served == (2, 2)
    assert sorted(ok(r).endpoint or "" for r in results) == sorted([one_server.url, two_server.url] * 2)


def test_replicas_with_different_model_digests_are_refused() -> None:
    with (
        FakeOllamaServer(Behaviour(models={"gloss:latest": "aaa"})) as a,
        FakeOllamaServer(Behaviour(models={"gloss:latest": "bbb"})) as b,
    ):
        error = failed(
            run_requests(
                "ollama",
                BackendConfig(model="gloss", base_urls=(a.url, b.url)),
                [GenerationRequest(prompt="q", max_tokens=3)],
            )[0]
        )
    assert not error.transient and "different builds" in str(error)


def test_missing_model_name_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        OllamaBackend(BackendConfig())


def test_error_line_mid_stream_is_transient() -> None:
    class Crashing(FakeOllamaServer):
        def handle_post(self, handler, body):  # type: ignore[no-untyped-def]
            handler.start_chunked("application/x-ndjson")
            handler.chunk(b'{"model":"gloss","response":"a","done":false}\n')
            handler.chunk(b'{"error":"llama runner process has terminated"}\n')
            handler.end_chunked()

    with Crashing() as server:
        error = failed(one(server, GenerationRequest(prompt="q", max_tokens=3)))
    assert error.transient and "runner process" in str(error)


def test_one_backend_serves_concurrent_requests() -> None:
    script = {f"p{i}": f"answer {i}" for i in range(6)}
    with FakeOllamaServer(Behaviour(script=script)) as server:

        async def main() -> list[str]:
            backend = OllamaBackend(BackendConfig(model="gloss", base_urls=(server.url,)))
            try:
                done = await asyncio.gather(
                    *(backend.generate(GenerationRequest(prompt=p, max_tokens=5)) for p in script)
                )
            finally:
                await backend.aclose()
            return [c.text for c in done]

        texts = asyncio.run(main())
        tag_calls = [r for r in server.requests if r.path == "/api/tags"]
    assert texts == list(script.values())
    assert len(tag_calls) == 1  # the digest is fetched once, not once per request
