"""The llm judge against a real endpoint: llama-cpp-python's ``llama_cpp.server`` on the packaged SmolLM2 GGUF,
reached through the openai backend (issue 34 item 2). SmolLM2 judges entailment at chance, so this checks the road,
never the labels: ``semantic cluster`` killed with SIGKILL mid-judging keeps the answers it stored, and the same
command finishes from them without generating any stored request again (read from the store's rows: a real server
keeps no request log to compare with).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from llamacpp_server import MODEL_ALIAS, llamacpp_server
from slow import starts_something


@pytest.fixture(scope="module")
@starts_something
def judge_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    with llamacpp_server(tmp_path_factory.mktemp("judge-server")) as url:
        yield url


def _rows(store: Path) -> list[tuple[str, str | None]]:
    """(request_key, response) of every row in the order written, read with plain sqlite3."""
    with sqlite3.connect(store) as db:
        return list(db.execute("SELECT request_key, response FROM responses ORDER BY seq"))


@pytest.mark.slow
def test_cluster_on_a_real_judge_server_killed_then_resumed_generates_no_stored_request_again(
        judge_url: str, tmp_path: Path) -> None:
    samples, questions = tmp_path / "dev.jsonl", tmp_path / "q.jsonl"
    texts = ["Paris.", "The capital is Paris.", "Lyon.", "It is Marseille.", "Paris, of course."]
    samples.write_text("".join(json.dumps({"task": "t1", "condition": "AB"[i % 2], "sample": i, "text": t}) + "\n"
                               for i, t in enumerate(texts)), encoding="utf-8")
    questions.write_text(json.dumps({"task": "t1", "question": "What is the capital of France?"}) + "\n")
    store = tmp_path / "judge.sqlite"
    command = [sys.executable, "-m", "forgegate", "semantic", "cluster", "--samples", str(samples), "--questions",
               str(questions), "--out", str(tmp_path / "out"), "--judge", "llm", "--backend", "openai", "--model",
               MODEL_ALIAS, "--base-url", judge_url, "--judge-cache", str(store), "--no-embedding", "--draft-only"]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and first.poll() is None:
        try:
            if store.exists() and sum(r[1] is not None for r in _rows(store)) >= 2:
                break
        except sqlite3.OperationalError:  # the schema is being created: look again
            pass
        time.sleep(0.05)
    assert first.poll() is None, f"the judge run ended before it could be killed: {first.communicate()}"
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    before = _rows(store)
    answered_before = {key for key, response in before if response is not None}
    second = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stderr
    added = _rows(store)[len(before):]
    assert answered_before and added  # the kill landed mid-run, and the rest was judged after it
    assert not answered_before & {key for key, _ in added}  # no stored answer was generated again
    draft = json.loads((tmp_path / "out" / "codebook.draft.json").read_text())
    assert draft["rule"]["judge"]["base_urls"] == [judge_url] and draft["rule"]["judge"]["backend"] == "openai"
