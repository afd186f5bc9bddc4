"""The loop cut-off on real models: the embedded SmolLM2 GGUF, a real llama.cpp server (openai route), and the
transformers backend's batch (a tiny random Llama built by tests/tiny_models.py).

SmolLM2-135M-Instruct loops at temperature 0 on the prompts below (tests/data/loops/smollm2_labelled.jsonl holds
its labelled outputs). Exact text differs between llama.cpp builds, so the tests compare the model with itself:
the cut-off answer is the first part of the answer it gives without the cut-off.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence

import pytest
from backend_servers import gather_results, greedy, run_requests

from forgegate.backends import BackendConfig, make_backend
from forgegate.backends.embedded import EmbeddedBackend
from forgegate.checks.loop_stop import loop_finding, loop_stop
from forgegate.core.records import Completion, StreamStop
from tests.tiny_models import TinyModels, build_tiny_models

pytestmark = pytest.mark.slow
IDENTITY = "⊙ ∎?"
"""SmolLM2 answers '⊙ ∎⊙⊙⊙⊙...': an identity loop."""
RUNAWAY = "αααααα"
"""SmolLM2 answers 'ΩΩΩΩ...': a runaway character run."""
SERVER_LOOP = "Write ha 40 times: ha ha ha ha ha ha ha ha ha ha"
"""llama-cpp-python's server samples with its own defaults (repeat penalty 1.1): SmolLM2 answers 'Ha ha ha ...'."""
CAP = 200


def _completions(results: Sequence[object]) -> list[Completion]:
    for result in results:
        assert isinstance(result, Completion), result
    return [r for r in results if isinstance(r, Completion)]


def _assert_cut(cut: Completion, whole: Completion, prompt: str) -> None:
    assert cut.finish == "loop", (cut.finish, cut.text[:80])
    assert cut.tokens < CAP // 3 and whole.tokens > cut.tokens
    assert whole.text.startswith(cut.text)  # greedy: the same answer, stopped early
    assert cut.token_texts is not None and "".join(cut.token_texts) == cut.text
    assert loop_finding(prompt, cut.text, cut.token_texts) is not None


@pytest.mark.parametrize("prompt", [IDENTITY, RUNAWAY])
def test_embedded_stops_its_loop_when_the_answer_starts_looping(prompt: str) -> None:
    request = greedy(prompt=prompt, max_tokens=CAP, seed=0)
    config = BackendConfig(n_threads=1)
    cut, whole = _completions(asyncio.run(gather_results(EmbeddedBackend(config), [request, request],
                                                         [loop_stop(prompt), None])))
    _assert_cut(cut, whole, prompt)
    assert cut.token_source == "embedded-tokens"
    finding = loop_finding(prompt, cut.text, cut.token_texts)
    assert finding is not None and finding.kind == loop_finding(prompt, whole.text, whole.token_texts).kind  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    from llamacpp_server import llamacpp_server

    with llamacpp_server(tmp_path_factory.mktemp("llamacpp")) as url:
        yield url


def test_openai_backend_closes_a_real_llamacpp_stream_when_the_answer_loops(server_url: str) -> None:
    config = BackendConfig(model="smollm2", base_urls=(server_url,), timeout_s=300)
    request = greedy(prompt=SERVER_LOOP, max_tokens=CAP, seed=0)
    (cut,) = _completions(run_requests("openai", config, [request], [loop_stop(SERVER_LOOP)]))
    (whole,) = _completions(run_requests("openai", config, [request]))
    _assert_cut(cut, whole, SERVER_LOOP)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModels:
    pytest.importorskip("torch")
    pytest.importorskip("peft")
    return build_tiny_models(tmp_path_factory.mktemp("tiny"))


def test_in_a_transformers_batch_only_the_row_whose_predicate_fires_stops(tiny: TinyModels) -> None:
    def after_six(text: str, tokens: Sequence[str] | None) -> bool:  # stands in for a loop found at token 6+
        return tokens is not None and len(tokens) >= 6

    first = greedy(prompt="The old man fished", max_tokens=24, seed=1, chat=False)
    second = greedy(prompt="She said that it was", max_tokens=24, seed=1, chat=False)

    async def go(stops: list[StreamStop | None]) -> list[Completion]:
        backend = make_backend("transformers", BackendConfig(model=str(tiny.base), batch_size=2))
        return _completions(await gather_results(backend, [first, second], stops))

    cut, other = asyncio.run(go([StreamStop(after_six, every=1), None]))
    alone_first, alone_second = asyncio.run(go([None, None]))
    assert cut.finish == "loop" and cut.tokens == 6
    assert alone_first.text.startswith(cut.text) and cut.token_texts == alone_first.token_texts[:6]  # type: ignore[index]
    assert other.finish == alone_second.finish and other.tokens == alone_second.tokens == 24
    assert other.text == alone_second.text  # the other row ran on, untouched
