"""Input (prompt) tokens: a backend reports the server's own count, or None when the server sent none."""

from __future__ import annotations

from backend_servers import Behaviour, FakeOllamaServer, FakeOpenAIServer, run_requests

from forgegate.backends import BackendConfig
from forgegate.core.records import Completion, GenerationRequest

PROMPT = "What is two plus two, exactly?"  # 6 tokens for the fake servers (runs of non-space characters)


def answer(backend: str, url: str, request: GenerationRequest) -> Completion:
    result = run_requests(backend, BackendConfig(model="gloss:latest", base_urls=(url,)), [request])[0]
    assert isinstance(result, Completion), result
    return result


def test_ollama_reports_prompt_eval_count_as_prompt_tokens() -> None:
    with FakeOllamaServer(Behaviour(script={PROMPT: "Four."})) as server:
        done = answer("ollama", server.url, GenerationRequest(prompt=PROMPT, max_tokens=8))
    assert done.prompt_tokens == 6 and done.tokens == 1


def test_ollama_stream_cut_at_the_client_cap_has_no_prompt_count() -> None:
    with FakeOllamaServer(Behaviour(script={PROMPT: "one two three four five"}, honour_cap=False)) as server:
        done = answer("ollama", server.url, GenerationRequest(prompt=PROMPT, max_tokens=2))
    assert done.finish == "length" and done.prompt_tokens is None  # the final chunk was never read


def test_openai_usage_prompt_tokens_and_none_without_usage() -> None:
    with FakeOpenAIServer(Behaviour(script={PROMPT: "Four."})) as server:
        done = answer("openai", server.url, GenerationRequest(prompt=PROMPT, max_tokens=8))
    assert done.prompt_tokens == 6
    with FakeOpenAIServer(Behaviour(script={PROMPT: "Four."}, send_usage=False)) as server:
        done = answer("openai", server.url, GenerationRequest(prompt=PROMPT, max_tokens=8))
    assert done.prompt_tokens == 6 and done.extra["streamed"] == "false"  # asked again without streaming
    with FakeOpenAIServer(Behaviour(script={PROMPT: "Four."}, send_usage=False, whole_usage=False)) as server:
        done = answer("openai", server.url, GenerationRequest(prompt=PROMPT, max_tokens=8))
    assert done.prompt_tokens is None and done.token_source == "stream-chunks"
