"""The openai backend against a REAL OpenAI-compatible server: llama-cpp-python's llama.cpp server.

One server per module (it is slow to start and serves one request at a time), started
with an API key so the key handling is tested end to end. llama_cpp.server 0.3.36 sends
no ``usage`` in streams even with ``stream_options.include_usage``, and a delta holding a
character the model spelled in several byte tokens carries all of them, so forgegate counts
each delta with the server's ``/extras/tokenize`` (``server-tokenize``) and must land on the
server's own non-streamed count.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from backend_servers import run_requests
from llamacpp_server import llamacpp_server

from forgegate.backends import BackendConfig, BackendError
from forgegate.core.records import Completion, GenerationRequest

pytestmark = pytest.mark.slow
KEY = "sk-llamacpp-test-7f3a9c1e5b"
KEY_ENV = "FORGEGATE_TEST_LLAMACPP_KEY"


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    with llamacpp_server(tmp_path_factory.mktemp("llamacpp"), api_key=KEY) as url:
        yield url


def generate(url: str, request: GenerationRequest, monkeypatch: pytest.MonkeyPatch) -> Completion:
    monkeypatch.setenv(KEY_ENV, KEY)
    config = BackendConfig(model="smollm2", base_urls=(url,), api_key_env=KEY_ENV, timeout_s=300)
    result = run_requests("openai", config, [request])[0]
    assert isinstance(result, Completion), result
    assert KEY not in repr(result)
    return result


def assert_counted(done: Completion, cap: int) -> None:
    assert 0 < done.tokens <= cap
    if done.token_source == "server-tokenize":
        assert done.token_texts is not None and len(done.token_texts) == done.tokens
        assert "".join(done.token_texts) == done.text
    else:  # a later server version may report usage
        assert done.token_source == "server-usage" and "server_completion_tokens" in done.extra


def non_streamed(url: str, prompt: str, max_tokens: int) -> dict[str, Any]:
    body = {"model": "smollm2", "messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens,
            "seed": 1, "temperature": 0.0, "top_p": 1.0}
    response = httpx.post(f"{url}/chat/completions", json=body, headers={"Authorization": f"Bearer {KEY}"},
                          timeout=300)
    response.raise_for_status()
    return response.json()  # type: ignore[no-any-return]


def test_count_equals_the_servers_own_when_one_delta_carries_several_tokens(
    server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SmolLM2 echoes "⊙" (three byte tokens, one delta); the same warm-up before both requests gives the
    # server the same cached prefix, so the greedy answer is the same with and without streaming
    prompt = "⊙ α?"
    non_streamed(server_url, "Name three colours.", 4)
    done = generate(server_url, GenerationRequest(prompt=prompt, max_tokens=32, seed=1), monkeypatch)
    non_streamed(server_url, "Name three colours.", 4)
    server = non_streamed(server_url, prompt, 32)
    assert server["choices"][0]["message"]["content"] == done.text and "⊙" in done.text
    assert done.token_source == "server-tokenize"
    assert done.tokens == server["usage"]["completion_tokens"]
    assert int(done.extra["stream_chunks"]) < done.tokens  # counting deltas would have undercounted
    assert_counted(done, 32)


def test_chat_answer_finishes_with_stop(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    request = GenerationRequest(prompt="Answer with one word: what colour is the sky?", max_tokens=60, seed=1)
    done = generate(server_url, request, monkeypatch)
    assert done.finish == "stop" and done.text.strip()
    assert_counted(done, 60)
    assert done.endpoint == server_url and done.model_digest is None


def test_chat_cap_is_honoured(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    request = GenerationRequest(prompt="Tell me a long story about a lighthouse keeper.", max_tokens=5, seed=1)
    done = generate(server_url, request, monkeypatch)
    assert done.finish == "length"
    assert_counted(done, 5)


def test_raw_completion_is_capped(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    done = generate(
        server_url, GenerationRequest(prompt="Once upon a time", max_tokens=6, seed=1, chat=False), monkeypatch
    )
    assert done.finish == "length" and done.text
    assert_counted(done, 6)


def test_empty_raw_prompt_is_answered(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    done = generate(server_url, GenerationRequest(prompt="", max_tokens=6, seed=1, chat=False), monkeypatch)
    assert done.finish in ("stop", "length") and done.tokens <= 6


def test_wrong_key_is_a_permanent_error_that_does_not_echo_it(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = "sk-wrong-key-0000"
    monkeypatch.setenv(KEY_ENV, wrong)
    config = BackendConfig(model="smollm2", base_urls=(server_url,), api_key_env=KEY_ENV)
    error = run_requests("openai", config, [GenerationRequest(prompt="hi", max_tokens=3)])[0]
    assert isinstance(error, BackendError) and not error.transient and "401" in str(error)
    assert wrong not in str(error) and KEY not in str(error)


def test_api_key_is_used_but_appears_in_no_completion_field(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    done = generate(server_url, GenerationRequest(prompt="Hi", max_tokens=3, seed=1), monkeypatch)
    fields = [done.text, done.endpoint or "", *done.extra.keys(), *done.extra.values(), *(done.token_texts or ())]
    assert not any(KEY in f for f in fields) and KEY not in repr(done)
