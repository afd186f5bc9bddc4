"""The run store: append-only history, latest answer wins, finished requests are never redone."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgegate.core.records import Completion, GenerationRequest
from forgegate.errors import UsageError
from forgegate.run import enforce_cap
from forgegate.store import RunStore

REQUEST = GenerationRequest(prompt="⊙ α?", max_tokens=4, seed=1)


def completion(text: str = "NOUS", tokens: int = 1, finish: str = "stop") -> Completion:
    return Completion(text=text, tokens=tokens, token_source="stream-chunks", finish=finish,  # type: ignore[arg-type]
                      latency_s=0.1, token_texts=tuple(text.split(" ")) if tokens > 1 else (text,))


def record(store: RunStore, key: str, *, answer: Completion | None = None, error: str | None = None) -> None:
    store.record(request_key=key, arm="model", item_id=key, seed=1, request=REQUEST, completion=answer,
                 error=error, attempts=1)


def test_an_error_then_an_answer_keeps_both_rows_and_the_answer_is_current(tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "run.sqlite") as store:
        record(store, "a", error="HTTP 500")
        assert store.finished_keys() == set()
        record(store, "a", answer=completion())
        assert store.finished_keys() == {"a"}
        assert [h["finish"] for h in store.history("a")] == ["error", "stop"]
        latest = store.latest()
    assert len(latest) == 1 and latest[0].response == "NOUS" and latest[0].completion().tokens == 1


def test_store_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "run.sqlite"
    with RunStore.open(path) as store:
        store.init_meta({"kind": "eval", "battery_sha256": "abc"})
        record(store, "a", answer=completion())
        record(store, "b", error="connection reset")
    with RunStore.open(path, create=False) as store:
        assert store.finished_keys() == {"a"}
        assert store.meta()["battery_sha256"] == "abc"
        assert "forgegate_version" in store.meta()


def test_a_store_refuses_a_run_with_another_identity(tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "run.sqlite") as store:
        store.init_meta({"battery_sha256": "abc"})
        with pytest.raises(UsageError, match="different run"):
            store.init_meta({"battery_sha256": "def"})


def test_record_needs_exactly_one_of_answer_or_error(tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "run.sqlite") as store, pytest.raises(ValueError):
        record(store, "a")


def test_client_side_cap_truncates_to_the_cap_and_marks_length() -> None:
    long = completion("one two three four five six", tokens=6)
    capped = enforce_cap(long, 4)
    assert capped.tokens == 4 and capped.finish == "length" and capped.text == "onetwothreefour"
    assert enforce_cap(long, 6) is long
