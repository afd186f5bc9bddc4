"""The openai backend against a REAL OpenAI-compatible server: llama-cpp-python's llama.cpp server.

One server per module (it is slow to start and serves one request at a time), started
with an API key so the key handling is tested end to end. llama_cpp.server 0.3.36 sends
no ``usage`` in streams even with ``stream_options.include_usage``, and a delta holding a
character the model spelled in several byte tokens carries all of them, so forgegate asks it
without streaming once its first stream ends without usage, and its counts are the server's own.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from backend_servers import greedy, run_requests
from llamacpp_server import llamacpp_server
from slow import starts_something

from forgegate.backends import BackendConfig, BackendError, make_backend
from forgegate.core.records import Completion, GenerationRequest

pytestmark = pytest.mark.slow
KEY = "sk-llamacpp-test-7f3a9c1e5b"
KEY_ENV = "FORGEGATE_TEST_LLAMACPP_KEY"


@pytest.fixture(scope="module")
@starts_something
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
    assert done.token_source == "server-usage" and "server_completion_tokens" in done.extra


def headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {KEY}"}


def non_streamed(url: str, prompt: str, max_tokens: int) -> dict[str, Any]:
    body = {"model": "smollm2", "messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens,
            "seed": 1, "temperature": 0.0, "top_p": 1.0}
    response = httpx.post(f"{url}/chat/completions", json=body, headers=headers(), timeout=300)
    response.raise_for_status()
    return response.json()  # type: ignore[no-any-return]


def streamed_deltas(url: str, prompt: str, max_tokens: int) -> list[str]:
    body = {"model": "smollm2", "messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens,
            "seed": 1, "temperature": 0.0, "top_p": 1.0, "stream": True}
    deltas = []
    with httpx.stream("POST", f"{url}/chat/completions", json=body, headers=headers(), timeout=300) as response:
        for line in response.iter_lines():
            if line.startswith("data: {"):
                content = (json.loads(line[6:])["choices"][0].get("delta") or {}).get("content")
                deltas.extend([content] if content else [])
    return deltas


WARM_UP = "Name three colours."
"""Sent before each compared request: the server reuses the cached prefix of the previous request,
which can change a greedy answer, so both sides must start from the same state."""
SPLIT = {"What does ι mean?": ("ι", 32), "⊙ α?": ("⊙", 32), "Écris « déjà vu » en français, s'il te plaît.": ("é", 32),
         "⊙ ∎?": ("∑", 64)}
"""Prompts whose answers hold characters SmolLM2 writes in several byte tokens (measured: ``ι`` as two
where its tokenizer has one, so counting the streamed pieces with the tokenizer came out low), with
the cap. At 64 tokens the ``∎`` answer's last character, ``∑``, straddles the cap: the server runs one
token past ``max_tokens`` to finish it and counts 65."""


def test_counts_equal_the_servers_own_for_characters_split_over_byte_tokens(
    server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    config = BackendConfig(model="smollm2", base_urls=(server_url,), api_key_env=KEY_ENV, timeout_s=300)

    async def ours() -> list[Completion]:
        backend = make_backend("openai", config)
        try:
            done = [await backend.generate(greedy(prompt="Hi", max_tokens=4, seed=1))]
            for prompt, (_, cap) in SPLIT.items():
                await asyncio.to_thread(non_streamed, server_url, WARM_UP, 4)
                done.append(await backend.generate(greedy(prompt=prompt, max_tokens=cap, seed=1)))
            return done
        finally:
            await backend.aclose()

    first, *answers = asyncio.run(ours())
    assert first.extra["streamed"] == "false"  # its first stream carried no usage: asked again, whole
    servers = []
    for prompt, (_, cap) in SPLIT.items():
        non_streamed(server_url, WARM_UP, 4)
        servers.append(non_streamed(server_url, prompt, cap))
    for (prompt, (glyph, cap)), done, server in zip(SPLIT.items(), answers, servers, strict=True):
        text, count = server["choices"][0]["message"]["content"], server["usage"]["completion_tokens"]
        assert done.token_source == "server-usage" and done.extra["streamed"] == "false" and done.ttft_s is None
        if count <= cap:
            assert done.text == text and glyph in done.text and done.tokens == count, prompt
        else:  # the text of the first ``cap`` tokens: without the character the overrun finished
            assert (done.tokens, done.finish, done.extra["server_exceeded_cap"]) == (cap, "length", "true")
            assert text.endswith(glyph) and done.text == text[: -len(glyph)], prompt
    assert int(servers[-1]["usage"]["completion_tokens"]) == 65  # the overrun case was exercised
    # what the stream alone would have given: fewer pieces than tokens (one piece per split character)
    non_streamed(server_url, WARM_UP, 4)
    deltas = streamed_deltas(server_url, "What does ι mean?", 32)
    assert "".join(deltas) == answers[0].text and len(deltas) < answers[0].tokens


def test_chat_answer_finishes_with_stop(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    request = greedy(prompt="Answer with one word: what colour is the sky?", max_tokens=60, seed=1)
    done = generate(server_url, request, monkeypatch)
    assert done.finish == "stop" and done.text.strip()
    assert_counted(done, 60)
    assert done.endpoint == server_url and done.model_digest is None


def test_chat_cap_is_honoured(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    request = greedy(prompt="Tell me a long story about a lighthouse keeper.", max_tokens=5, seed=1)
    done = generate(server_url, request, monkeypatch)
    assert done.finish == "length"
    assert_counted(done, 5)


def test_raw_completion_is_capped(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    done = generate(
        server_url, greedy(prompt="Once upon a time", max_tokens=6, seed=1, chat=False), monkeypatch
    )
    assert done.finish == "length" and done.text
    assert_counted(done, 6)


def test_empty_raw_prompt_is_answered(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    done = generate(server_url, greedy(prompt="", max_tokens=6, seed=1, chat=False), monkeypatch)
    assert done.finish in ("stop", "length") and done.tokens <= 6


def test_wrong_key_is_a_permanent_error_that_does_not_echo_it(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = "sk-wrong-key-0000"
    monkeypatch.setenv(KEY_ENV, wrong)
    config = BackendConfig(model="smollm2", base_urls=(server_url,), api_key_env=KEY_ENV)
    error = run_requests("openai", config, [greedy(prompt="hi", max_tokens=3)])[0]
    assert isinstance(error, BackendError) and not error.transient and "401" in str(error)
    assert wrong not in str(error) and KEY not in str(error)


def test_api_key_is_used_but_appears_in_no_completion_field(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    done = generate(server_url, greedy(prompt="Hi", max_tokens=3, seed=1), monkeypatch)
    fields = [done.text, done.endpoint or "", *done.extra.keys(), *done.extra.values(), *(done.token_texts or ())]
    assert not any(KEY in f for f in fields) and KEY not in repr(done)
