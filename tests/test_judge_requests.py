"""The llm judge's requests go through the run engine into a run store (issue 34 item 2): a transient failure is
retried, a run killed with SIGKILL resumes without asking again for a stored answer, and a judge that always fails
ends the command INCOMPLETE (exit 3), never a pass.

The judge server here is the fake Ollama server (tests/backend_servers.py) behind the real ollama backend: it is a
stand-in because no Ollama runs on this machine and a real model can neither fail on cue nor answer slowly enough
to be killed at a chosen point. The real-model path (the packaged SmolLM2 through the embedded backend, into the
same store) is tests/test_semantic_judges.py's slow test.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from backend_fake_http import Behaviour
from backend_servers import FakeOllamaServer

from forgegate.errors import InputError, RequestsIncomplete, UsageError
from forgegate.pipeline.semantic.judge import make_judge
from forgegate.run.judge_requests import JUDGE_ARM
from forgegate.semantic.entailment import LlmJudge

MODELS = {"judge:latest": "sha256:" + "0" * 64}
QUESTION = "What is the capital of France?"
PAIRS = [("Paris.", "The capital is Paris."), ("Paris.", "Lyon."), ("Lyon.", "Paris."), ("Nice.", "Paris.")]


def _judge(server: FakeOllamaServer, store: Path) -> LlmJudge:
    judge = make_judge("llm", backend="ollama", model="judge", base_urls=[server.url], cache=store, quiet=True)
    assert isinstance(judge, LlmJudge)
    return judge


def _stored(store: Path) -> list[tuple[str, str, str | None, int]]:
    """(arm, prompt, response, attempts) of every row, read with plain sqlite3 (not forgegate's reader)."""
    with sqlite3.connect(store) as db:
        return list(db.execute("SELECT arm, prompt, response, attempts FROM responses ORDER BY seq"))


def test_a_transient_judge_failure_is_retried_and_every_answer_is_stored(tmp_path: Path) -> None:
    store = tmp_path / "judge.sqlite"
    with FakeOllamaServer(Behaviour(default="entailment", fail_first=2, models=MODELS)) as server:
        judge = _judge(server, store)
        try:
            labels = judge.judge(QUESTION, PAIRS)
        finally:
            judge.close()
        sent = len(server.generation_requests())
    assert labels == ["entailment"] * len(PAIRS)
    assert sent == len(PAIRS) + 2  # the two 500s were asked again, nothing else twice
    rows = _stored(store)
    assert [r[0] for r in rows] == [JUDGE_ARM] * len(PAIRS) and all(r[2] == "entailment" for r in rows)
    assert sum(r[3] for r in rows) == len(PAIRS) + 2  # the store records the retries as attempts
    assert judge.describe()["base_urls"] == [server.url]  # the frozen record can rebuild the judge at its server


def test_stored_judge_answers_are_reused_not_asked_again(tmp_path: Path) -> None:
    store = tmp_path / "judge.sqlite"
    with FakeOllamaServer(Behaviour(default="neutral", models=MODELS)) as server:
        first = _judge(server, store)
        try:
            labels = first.judge(QUESTION, PAIRS[:2])
        finally:
            first.close()
        again = _judge(server, store)
        try:
            assert again.judge(QUESTION, PAIRS) == labels + ["neutral", "neutral"]
        finally:
            again.close()
        prompts = [r.body["messages"][-1]["content"] for r in server.generation_requests()]
    assert len(prompts) == len(PAIRS) == len(set(prompts))  # each prompt asked exactly once over both runs
    assert (again.requests.reused, again.requests.generated, again.calls) == (2, 2, len(PAIRS))


def test_a_judge_that_always_fails_raises_incomplete_with_the_failures_stored(tmp_path: Path) -> None:
    store = tmp_path / "judge.sqlite"
    with FakeOllamaServer(Behaviour(default="entailment", fail_first=10**6, models=MODELS)) as server:
        judge = _judge(server, store)
        try:
            try:
                judge.judge(QUESTION, PAIRS[:2])
            except RequestsIncomplete as exc:
                message = str(exc)
            else:
                raise AssertionError("a judge whose every request failed returned labels")
        finally:
            judge.close()
    assert "2 of 2 entailment requests" in message
    rows = _stored(store)
    assert len(rows) == 2 and all(r[2] is None and r[3] > 1 for r in rows)  # retried, then recorded as errors


def _write_inputs(tmp_path: Path, n: int) -> tuple[Path, Path]:
    samples, questions = tmp_path / "dev.jsonl", tmp_path / "q.jsonl"
    samples.write_text("".join(json.dumps({"task": "t1", "condition": "AB"[i % 2], "sample": i,
                                           "text": f"answer number {i}"}) + "\n" for i in range(n)),
                       encoding="utf-8")
    questions.write_text(json.dumps({"task": "t1", "question": "Capital?"}) + "\n", encoding="utf-8")
    return samples, questions


def _cluster(samples: Path, questions: Path, out: Path, server: FakeOllamaServer,
             store: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "forgegate", "semantic", "cluster", "--samples", str(samples), "--questions",
         str(questions), "--out", str(out), "--judge", "llm", "--backend", "ollama", "--model", "judge",
         "--base-url", server.url, "--judge-cache", str(store), "--no-embedding"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow  # a forgegate subprocess per run, and the engine's retry backoff (several seconds)
def test_semantic_cluster_killed_mid_judging_resumes_without_repeating_a_stored_request(tmp_path: Path) -> None:
    samples, questions = _write_inputs(tmp_path, 6)
    store = tmp_path / "judge.sqlite"
    # slow answers (a delay per streamed chunk) so the kill lands with some answers stored and others not
    with FakeOllamaServer(Behaviour(default="neutral", chunk_delay_s=0.15, models=MODELS)) as server:
        proc = _cluster(samples, questions, tmp_path / "out", server, store)
        deadline = time.monotonic() + 60
        stored_before: list[tuple[str, str, str | None, int]] = []
        while time.monotonic() < deadline and proc.poll() is None:
            if store.exists():
                try:
                    stored_before = [r for r in _stored(store) if r[2] is not None]
                except sqlite3.OperationalError:  # the schema is being created: look again
                    stored_before = []
                if len(stored_before) >= 3:
                    break
            time.sleep(0.05)
        assert proc.poll() is None, f"the judge run ended before it could be killed: {proc.communicate()}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        stored_before = [r for r in _stored(store) if r[2] is not None]  # what the store kept, read after the kill
        asked_before = len(server.generation_requests())
        resumed = _cluster(samples, questions, tmp_path / "out", server, store)
        out, err = resumed.communicate(timeout=120)
        asked_after = [r.body["messages"][-1]["content"] for r in server.generation_requests()[asked_before:]]
    assert proc.returncode == -signal.SIGKILL
    assert resumed.returncode == 0, err
    assert stored_before and not {r[1] for r in stored_before} & set(asked_after)  # no stored answer asked again
    assert asked_after  # and the rest was asked (the kill landed mid-run)
    report = json.loads((tmp_path / "out" / "codebook.json").read_text(encoding="utf-8"))
    assert report["rule"]["judge"]["base_urls"] == [server.url]
    assert len({r[1] for r in _stored(store) if r[2] is not None}) == len(stored_before) + len(set(asked_after))


@pytest.mark.slow  # a forgegate subprocess per run, and the engine's retry backoff (several seconds)
def test_semantic_cluster_with_a_judge_that_always_fails_exits_incomplete(tmp_path: Path) -> None:
    samples, questions = _write_inputs(tmp_path, 3)
    with FakeOllamaServer(Behaviour(default="entailment", fail_first=10**6, models=MODELS)) as server:
        done = _cluster(samples, questions, tmp_path / "out", server, tmp_path / "judge.sqlite")
        _, err = done.communicate(timeout=120)
    assert done.returncode == 3, err
    assert "INCOMPLETE" in err and "failed for good" in err and "internal error" not in err
    assert not (tmp_path / "out" / "codebook.json").exists()


def test_a_dead_judge_server_is_bad_input_before_any_request_not_an_incomplete_run(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(models=MODELS)) as server:
        url = server.url
    judge = make_judge("llm", backend="ollama", model="judge", base_urls=[url], cache=tmp_path / "j.sqlite",
                       quiet=True)
    try:
        with pytest.raises(UsageError, match=f"nothing answers at {url}"):
            judge.judge(QUESTION, PAIRS[:1])
    finally:
        judge.close()
    assert _stored(tmp_path / "j.sqlite") == []  # the probe refused before a request was planned into the store


def test_a_jsonl_judge_cache_from_an_older_forgegate_is_refused_by_name(tmp_path: Path) -> None:
    old = tmp_path / "judge.jsonl"
    old.write_text(json.dumps({"question": "q", "premise": "a", "hypothesis": "b", "label": "neutral"}) + "\n")
    with pytest.raises(InputError, match="JSONL judge cache from an older forgegate"):
        make_judge("llm", backend="ollama", model="judge", cache=old)


def test_the_store_reads_a_judge_batch_by_key_latest_row_each_across_query_chunks(tmp_path: Path) -> None:
    from forgegate.core.records import Completion, GenerationRequest
    from forgegate.store import RunStore

    request = GenerationRequest(prompt="p", max_tokens=8, temperature=0.0, seed=0)
    with RunStore.open(tmp_path / "s.sqlite") as store:
        for i in range(600):  # more keys than one IN (...) query binds
            store.record(request_key=f"judge/{i}/0", arm=JUDGE_ARM, item_id=str(i), seed=0, request=request,
                         completion=None, error="HTTP 500", attempts=4)
        store.record(request_key="judge/7/0", arm=JUDGE_ARM, item_id="7", seed=0, request=request,
                     completion=Completion(text="neutral", tokens=1, token_source="server", finish="stop",
                                           latency_s=0.1), error=None, attempts=1)
        rows = store.latest_for([f"judge/{i}/0" for i in range(600)] + ["judge/absent/0"])
    assert len(rows) == 600 and "judge/absent/0" not in rows
    assert rows["judge/7/0"].response == "neutral" and rows["judge/599/0"].error == "HTTP 500"


def test_a_frozen_llm_judge_record_with_malformed_base_urls_is_refused_at_its_field(tmp_path: Path) -> None:
    from forgegate.pipeline.semantic.judge import frozen_judge

    with pytest.raises(InputError, match="base_urls is not a list of URLs") as caught:
        frozen_judge({"judge": "llm", "backend": "ollama", "model": "judge", "base_urls": "http://127.0.0.1:1"},
                     tmp_path / "codebook.json", tmp_path / "judge.sqlite")
    assert caught.value.field == "rule.judge.base_urls"


def test_one_progress_display_serves_every_judge_batch_and_grows_with_them(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(default="neutral", models=MODELS)) as server:
        judge = make_judge("llm", backend="ollama", model="judge", base_urls=[server.url],
                           cache=tmp_path / "j.sqlite", quiet=False)
        assert isinstance(judge, LlmJudge)
        try:
            judge.judge(QUESTION, PAIRS[:2])
            display = judge.requests._progress  # type: ignore[attr-defined]
            judge.judge(QUESTION, PAIRS)  # two stored, two new
            assert judge.requests._progress is display  # type: ignore[attr-defined]  # the same display
        finally:
            judge.close()
    assert display is not None and not display.quiet
    assert display.total == len(PAIRS) and display.tokens == len(PAIRS)  # one token ('neutral') per answer
