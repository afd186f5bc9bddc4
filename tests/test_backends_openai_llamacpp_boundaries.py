"""Exact token boundaries from the REAL llama-cpp-python server, which streams no usage and so is asked whole.

A request that needs boundaries (a ``within_tokens`` item) asks for log-probabilities. The chat
endpoint lists each token's own text only (``""`` for a byte token of a split character); the
raw completions endpoint also gives ``text_offset``, the server's own character offset of each
token. The chat prompt is the model's template around the message, so the same text asked raw
gives the server's offsets for the chat answer: forgegate's boundaries must be exactly those.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from backend_servers import greedy
from llamacpp_server import llamacpp_server
from slow import starts_something

from forgegate.backends import BackendConfig, make_backend
from forgegate.battery import BatteryItem
from forgegate.checks.score import score_item
from forgegate.core.records import Completion, GenerationRequest

pytestmark = pytest.mark.slow

SPLIT = {"What does ι mean?": "ι", "⊙ α?": "⊙"}
"""Prompts whose (greedy, 32-token) answers start with a character SmolLM2 writes in several byte tokens."""
CAP = 32
TEMPLATE = ("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
            "<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n")
"""The bundled SmolLM2's chat template (from its GGUF metadata) for one user message, default system included."""
WARM_UP = "Name three colours."
"""Sent before each compared request: the server reuses the cached prefix of the previous request,
which can change a greedy answer, so every compared request starts from the same state."""


@pytest.fixture(scope="module")
@starts_something
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    with llamacpp_server(tmp_path_factory.mktemp("llamacpp")) as url:
        yield url


def post(url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    base = {"model": "smollm2", "seed": 1, "temperature": 0.0, "top_p": 1.0}
    response = httpx.post(f"{url}{path}", json={**base, **body}, timeout=300)
    response.raise_for_status()
    return response.json()  # type: ignore[no-any-return]


def warm_up(url: str) -> None:
    post(url, "/completions", {"prompt": WARM_UP, "max_tokens": 4})


def servers_own(url: str, prompt: str) -> tuple[str, tuple[str, ...], int]:
    """(text, the token texts its text_offset gives, usage) of ``prompt`` asked raw, non-streamed."""
    warm_up(url)
    answer = post(url, "/completions", {"prompt": prompt, "max_tokens": CAP, "logprobs": 0})
    text, offsets = answer["choices"][0]["text"], answer["choices"][0]["logprobs"]["text_offset"]
    starts = [o - len(prompt) for o in offsets]
    pieces = tuple(text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True))
    return text, pieces, int(answer["usage"]["completion_tokens"])


def ours(url: str, requests: list[GenerationRequest]) -> list[Completion]:
    async def main() -> list[Completion]:
        backend = make_backend("openai", BackendConfig(model="smollm2", base_urls=(url,), timeout_s=300))
        try:
            await backend.generate(greedy(prompt="Hi", max_tokens=4, seed=1))  # finds it out: whole
            done = []
            for request in requests:
                await asyncio.to_thread(warm_up, url)
                done.append(await backend.generate(request))
            return done
        finally:
            await backend.aclose()

    return asyncio.run(main())


def test_chat_boundaries_are_the_servers_own_offsets_for_characters_split_over_byte_tokens(server_url: str) -> None:
    requests = [greedy(prompt=p, max_tokens=CAP, seed=1, token_boundaries=True) for p in SPLIT]
    answers = ours(server_url, requests)
    for (prompt, glyph), done in zip(SPLIT.items(), answers, strict=True):
        text, pieces, usage = servers_own(server_url, TEMPLATE.format(prompt=prompt))
        assert done.text == text and text.startswith(glyph), prompt  # the same answer, asked raw
        assert done.extra["streamed"] == "false" and done.extra["token_boundaries"] == "logprobs tokens"
        assert done.token_texts == pieces and len(pieces) == done.tokens == usage and "".join(pieces) == text
        assert pieces[0] == "", prompt  # a byte token: the glyph belongs to the token that completes it
        # a within_tokens window cuts exactly where the glyph's last byte token ends
        ends = pieces.index(glyph) + 1
        item = BatteryItem(id="T-01", category="TEST", prompt=prompt, expected=glyph, max_tokens=CAP,
                           eval_type="contains", within_tokens=ends)
        assert score_item(item, done).detail.startswith(f"contains {glyph!r} within the first {ends} tokens")
        early = score_item(item.model_copy(update={"within_tokens": ends - 1}), done).detail
        assert early.startswith(f"none of [{glyph!r}] within the first {ends - 1} tokens; {glyph!r} appears only")
        assert "approximate" not in early


def test_raw_boundaries_are_the_servers_text_offsets(server_url: str) -> None:
    prompt = "⊙ α"  # answered "₁(1) = 2...": its ₁ is two byte tokens
    (done,) = ours(server_url, [greedy(prompt=prompt, max_tokens=CAP, seed=1, chat=False,
                                                  token_boundaries=True)])
    text, pieces, usage = servers_own(server_url, prompt)
    assert done.text == text and done.extra["token_boundaries"] == "logprobs text_offset"
    assert done.token_texts == pieces and len(pieces) == done.tokens == usage and "".join(pieces) == text
    assert "" in pieces  # a character split over byte tokens was placed


def test_a_request_without_the_flag_gets_no_boundaries_and_the_same_answer(server_url: str) -> None:
    plain, flagged = ours(server_url, [greedy(prompt="⊙ α?", max_tokens=CAP, seed=1, token_boundaries=b)
                                       for b in (False, True)])
    assert plain.extra["streamed"] == "false" and plain.token_texts is None and "token_boundaries" not in plain.extra
    assert (plain.text, plain.tokens) == (flagged.text, flagged.tokens) and flagged.token_texts is not None
