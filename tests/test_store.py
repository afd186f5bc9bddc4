"""The run store: append-only history, latest answer wins, finished requests are never redone."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from forgegate.core.match_rule import LEGACY_MATCH_RULE
from forgegate.core.records import ENDED_BY, Completion, GenerationRequest
from forgegate.errors import UsageError
from forgegate.run import enforce_cap
from forgegate.store import RunMeta, RunStore
from forgegate.store.faults import DamagedStoreError

REQUEST = GenerationRequest(prompt="⊙ α?", max_tokens=4, seed=1)


def completion(text: str = "NOUS", tokens: int = 1, finish: str = "stop") -> Completion:
    return Completion(text=text, tokens=tokens, token_source="stream-chunks", finish=finish,  # type: ignore[arg-type]
                      latency_s=0.1, token_texts=tuple(text.split(" ")) if tokens > 1 else (text,),
                      extra={ENDED_BY: finish})  # the server said it finished it (every server backend records it)


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
        store.init_meta(RunMeta(kind="eval", battery_sha256="abc"))
        record(store, "a", answer=completion())
        record(store, "b", error="connection reset")
    with RunStore.open(path, create=False) as store:
        assert store.finished_keys() == {"a"}
        assert store.meta().battery_sha256 == "abc"
        assert "forgegate_version" in store.meta().model_fields_set


def test_a_store_refuses_a_run_with_another_identity(tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "run.sqlite") as store:
        store.init_meta(RunMeta(battery_sha256="abc"))
        with pytest.raises(UsageError, match="different run: 'battery_sha256' is 'abc' there, 'def' now"):
            store.init_meta(RunMeta(battery_sha256="def"))
        store.init_meta(RunMeta(battery_sha256="abc", seed=1))  # a key the store lacks is not compared


OLD_META = {  # key -> JSON text, as stores written before the typed record hold them (a plan with two arms)
    "kind": '"plan"', "run_id": '"plan-x"', "plan_name": '"x"', "created": '"2026-01-01T00:00:00+00:00"',
    "gate_config": '{"path": "g.toml", "sha256": "ab", "toml": "name = 1"}',  # from before the match rule
    "generating": '{"pid": 12, "host": "h", "since": 1.5}', "planned_requests": "8",
    "model_digest:base": '"sha256:1"', "model_digest:tuned": "null",
    "model_digest:tuned_error": '"BackendError: no digest"', "last_gate:base": '"PASS"',
    "some_later_key": '{"a newer version": true}',
}


def _raw_store(path: Path, rows: dict[str, str]) -> None:
    with RunStore.open(path):
        pass
    with sqlite3.connect(path) as db:
        db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", list(rows.items()))


def test_a_store_written_before_the_typed_record_reads_into_it(tmp_path: Path) -> None:
    _raw_store(tmp_path / "old.sqlite", OLD_META)
    with RunStore.open(tmp_path / "old.sqlite", readonly=True) as store:
        meta = store.meta()
    assert (meta.kind, meta.label, meta.planned_requests, meta.model) == ("plan", "x", 8, None)
    assert meta.gate_config is not None and meta.gate_config.match_rule == LEGACY_MATCH_RULE
    assert meta.generating is not None and (meta.generating.pid, meta.generating.since) == (12, 1.5)
    assert meta.arm_digests == {"base": "sha256:1", "tuned": None}
    assert meta.arm_digest_errors == {"tuned": "BackendError: no digest"} and meta.arm_last_gates == {"base": "PASS"}


def test_the_record_writes_the_keys_earlier_versions_wrote(tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "new.sqlite") as store:
        store.update_meta(RunMeta(arm_digests={"base": "sha256:1", "tuned": None},
                                  arm_digest_errors={"tuned": "BackendError: no digest"},
                                  arm_last_gates={"base": "PASS"}, planned_requests=8))
        store.update_meta(RunMeta(generating=None))
    with sqlite3.connect(tmp_path / "new.sqlite") as db:
        rows = dict(db.execute("SELECT key, value FROM meta"))
    assert rows == {key: OLD_META[key] for key in ("model_digest:base", "model_digest:tuned",
                                                   "model_digest:tuned_error", "last_gate:base",
                                                   "planned_requests")} | {"generating": "null"}


def test_a_meta_value_forgegate_never_writes_is_a_damaged_store(tmp_path: Path) -> None:
    _raw_store(tmp_path / "bad.sqlite", {"planned_requests": '"many"'})
    with RunStore.open(tmp_path / "bad.sqlite", readonly=True) as store, \
            pytest.raises(DamagedStoreError, match="meta 'planned_requests'"):
        store.meta()


def test_record_needs_exactly_one_of_answer_or_error(tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "run.sqlite") as store, pytest.raises(ValueError):
        record(store, "a")


def test_client_side_cap_truncates_to_the_cap_and_marks_length() -> None:
    long = completion("one two three four five six", tokens=6)
    capped = enforce_cap(long, 4)
    assert capped.tokens == 4 and capped.finish == "length" and capped.text == "onetwothreefour"
    assert enforce_cap(long, 6) is long


def test_a_server_answer_without_a_finish_from_the_server_is_generated_again_on_resume(tmp_path: Path) -> None:
    """Issue 33: an answer the store does not show the server finished may be a stream the server cut; a
    resumed run must not trust it. forgegate's own loop cut-off and answers with a recorded end stay."""
    unvouched = dataclasses.replace(completion(), extra={})
    loop_cut = dataclasses.replace(completion(finish="loop"), extra={})
    with RunStore.open(tmp_path / "run.sqlite") as store:
        record(store, "vouched", answer=completion())
        record(store, "unvouched", answer=unvouched)
        record(store, "loop", answer=loop_cut)
    with RunStore.open(tmp_path / "run.sqlite", create=False) as store:
        assert store.finished_keys() == {"vouched", "loop"}
        rows = {r.request_key: r for r in store.latest()}
    assert rows["unvouched"].unconfirmed and not rows["vouched"].unconfirmed
    assert rows["vouched"].extra == {ENDED_BY: "stop"}


def test_a_store_from_before_the_extra_column_opens_and_its_server_answers_are_regenerated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with RunStore.open(path) as store:
        record(store, "a", answer=completion())
    with sqlite3.connect(path) as db:  # what a store written before the column holds
        db.execute("ALTER TABLE responses DROP COLUMN extra")
    with RunStore.open(path, readonly=True) as store:
        assert [r.unconfirmed for r in store.latest()] == [True]
    with RunStore.open(path, create=False) as store:
        assert store.finished_keys() == set()
