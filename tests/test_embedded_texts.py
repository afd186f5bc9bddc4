"""The embedded backend's answers are pinned: a seed gives the texts recorded in tests/data/embedded_texts.json.

The fixture was recorded with the streamed ``create_chat_completion`` backend (the one
that ran every ``forgegate eval`` before the generation loop was rewritten for speed),
with eval's own request parameters on a few bundled-battery items, plus sampled, raw and
stop-string requests as a plan sends them. Whatever the backend does inside, the same
seed must give the same text, token boundaries, token count and finish reason.

Exact text can differ between llama.cpp builds; the fixture names the build it was
recorded on and the test is skipped on another one. Re-record (only after checking a
difference is the build's, not the backend's) with:

    PYTHONPATH=src python tests/test_embedded_texts.py --record
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from forgegate.backends import BackendConfig
from forgegate.backends.embedded import EmbeddedBackend
from forgegate.battery import bundled_battery_path, load_battery
from forgegate.core.records import Completion, GenerationRequest

pytestmark = pytest.mark.slow
FIXTURE = Path(__file__).parent / "data" / "embedded_texts.json"
EVAL_ITEMS = ("LX-A-03", "LX-STOP-01", "LX-IDENTITY-01", "LX-Z-03", "LX-NEGATIVE-10", "LX-SEMANTIC-04")
"""Eval's defaults (seed 0, greedy): a runaway multibyte loop, short stops, a refusal, the empty prompt."""


def fixture_requests() -> dict[str, GenerationRequest]:
    """The pinned requests: eval's own on bundled items, then what plans add (sampling, raw prompts, stops)."""
    items = {item.item_id: item for item in load_battery(bundled_battery_path()).items}
    requests = {
        f"eval:{item_id}": GenerationRequest(prompt=items[item_id].prompt, max_tokens=items[item_id].max_tokens,
                                             seed=0, temperature=0.0, top_p=1.0)
        for item_id in EVAL_ITEMS
    }
    requests["sampled:LX-G-04"] = GenerationRequest(prompt=items["LX-G-04"].prompt, max_tokens=160, seed=7,
                                                    temperature=0.8, top_p=0.95)
    requests["sampled:LX-B-04"] = GenerationRequest(prompt=items["LX-B-04"].prompt, max_tokens=160, seed=3,
                                                    temperature=1.0, top_p=1.0)
    requests["raw:story"] = GenerationRequest(prompt="Once upon a time", max_tokens=40, seed=5, temperature=0.8,
                                              chat=False)
    requests["stop:LX-Z-02"] = GenerationRequest(prompt=items["LX-Z-02"].prompt, max_tokens=128, seed=0,
                                                 temperature=0.0, top_p=1.0, stop=("dragon",))
    # Sent values spelt out: the texts were recorded when a request without them meant greedy (temperature 0,
    # top_p 1); since sampling as served (issue 44), None sends nothing and the backend's own defaults apply.
    return requests


def observed(done: Completion) -> dict[str, Any]:
    return {"text": done.text, "tokens": done.tokens, "finish": done.finish,
            "token_texts": list(done.token_texts or ()), "prompt_tokens": done.prompt_tokens}


def generate_all(requests: dict[str, GenerationRequest]) -> dict[str, dict[str, Any]]:
    """Every request in turn on one backend with eval's default config (the thread count changes greedy text)."""

    async def run() -> dict[str, dict[str, Any]]:
        backend = EmbeddedBackend(BackendConfig())
        try:
            return {name: observed(await backend.generate(request)) for name, request in requests.items()}
        finally:
            await backend.aclose()

    return asyncio.run(run())


def llama_build() -> str:
    from importlib.metadata import version

    return f"llama-cpp-python {version('llama-cpp-python')}"


def test_same_seed_gives_the_recorded_texts_token_boundaries_and_finish() -> None:
    recorded = json.loads(FIXTURE.read_text(encoding="utf-8"))
    if recorded["build"] != llama_build():
        pytest.skip(f"texts recorded on {recorded['build']}, this is {llama_build()}")
    requests = fixture_requests()
    assert set(recorded["answers"]) == set(requests)
    answers = generate_all(requests)
    for name, expected in recorded["answers"].items():
        assert answers[name] == expected, name
    assert {a["finish"] for a in answers.values()} == {"stop", "length"}  # both ends of an answer are pinned


def record() -> None:
    answers = generate_all(fixture_requests())
    FIXTURE.write_text(json.dumps({"build": llama_build(), "answers": answers}, ensure_ascii=False, indent=1) + "\n",
                       encoding="utf-8")
    print(f"wrote {FIXTURE}: {len(answers)} answers")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        raise SystemExit("usage: python tests/test_embedded_texts.py --record")
    record()
