"""``semantic cluster`` inputs (issue 38): duplicate sample ids are refused, a codebook is not frozen on judge answers
that did not parse, and the llm judge reaches the server given by ``--base-url``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from test_semantic_separation import DEV, QUESTIONS

from forgegate.core.records import GenerationRequest
from forgegate.errors import InputError, UsageError
from forgegate.pipeline.semantic.judge import make_judge
from forgegate.semantic.codebook import read_text_samples
from forgegate.semantic.develop_confirm import develop
from forgegate.semantic.entailment import LlmJudge


def test_a_sample_id_given_twice_is_refused_naming_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "dev.jsonl"
    rows = [s.model_dump(mode="json") for s in DEV]
    path.write_text("".join(json.dumps(r) + "\n" for r in [*rows, rows[1]]), encoding="utf-8")
    with pytest.raises(InputError, match="is on line 2 and again on line 6") as caught:
        read_text_samples(path)
    assert caught.value.line == 6
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert len(read_text_samples(path)) == len(DEV)


class Mumbling:
    """Scripted judge requests whose every answer names no entailment label. The real LlmJudge parses them; a real
    model that mumbles on cue cannot be had here, so this stands in for the engine-backed asker (it is not a model)."""

    generated = 0
    reused = 0

    def answer(self, requests: Sequence[GenerationRequest]) -> list[str | None]:
        self.generated += len(requests)
        return ["hmm, hard to say"] * len(requests)

    def describe(self) -> dict[str, Any]:
        return {"backend": "scripted", "model": "mumble", "base_urls": []}

    def close(self) -> None:
        return None


def test_a_codebook_is_not_frozen_when_the_judges_answers_did_not_parse(tmp_path: Path) -> None:
    judge = LlmJudge(Mumbling())
    try:
        with pytest.raises(UsageError, match=r"entailment answers of the judge named no label .* not frozen"):
            develop(DEV, QUESTIONS, judge, tmp_path, seed=0)
        assert judge.unparsed > 0
        assert (tmp_path / "codebook.draft.json").exists() and not (tmp_path / "codebook.json").exists()
        draft = develop(DEV, QUESTIONS, judge, tmp_path / "draft", seed=0, freeze_now=False)
        assert draft.report["judge"]["unparsed_answers"] == judge.unparsed  # a draft says so, for inspection
    finally:
        judge.close()


def test_the_llm_judge_takes_the_base_url() -> None:
    judge = make_judge("llm", backend="openai", model="judge-model", base_urls=["http://127.0.0.1:8081/v1"])
    try:
        assert isinstance(judge, LlmJudge)
        assert judge.requests.backend.config.base_urls == ("http://127.0.0.1:8081/v1",)  # type: ignore[attr-defined]
        assert judge.describe()["base_urls"] == ["http://127.0.0.1:8081/v1"]
    finally:
        judge.close()


def test_semantic_cluster_with_an_ollama_judge_at_base_url_freezes_cleanly_or_refuses_unparsed_answers(
        tmp_path: Path) -> None:
    """The llm judge through the real ollama backend against the fake Ollama server (no Ollama runs here): the
    run leaves no pending task behind, and 3 of 3 unparsed answers refuse to freeze (the issue's case)."""
    import subprocess
    import sys

    from backend_fake_http import Behaviour
    from backend_servers import FakeOllamaServer

    samples, questions = tmp_path / "dev.jsonl", tmp_path / "q.jsonl"
    samples.write_text("".join(json.dumps({"task": "t1", "condition": c, "sample": i, "text": t}) + "\n"
                               for i, (c, t) in enumerate([("A", "Paris"), ("A", "Lyon"), ("B", "it is Paris")])),
                       encoding="utf-8")
    questions.write_text(json.dumps({"task": "t1", "question": "Capital?"}) + "\n", encoding="utf-8")
    outcomes = {}
    for answer in ("entailment", "hmm"):
        with FakeOllamaServer(Behaviour(default=answer, models={"judge:latest": "sha256:" + "0" * 64})) as server:
            outcomes[answer] = subprocess.run(
                [sys.executable, "-m", "forgegate", "semantic", "cluster", "--samples", str(samples), "--questions",
                 str(questions), "--out", str(tmp_path / answer), "--judge", "llm", "--backend", "ollama", "--model",
                 "judge", "--base-url", server.url, "--no-embedding"], capture_output=True, text=True, timeout=120)
    parsed, mumbled = outcomes["entailment"], outcomes["hmm"]
    assert parsed.returncode == 0 and (tmp_path / "entailment" / "codebook.json").exists(), parsed.stderr
    assert mumbled.returncode == 2 and "3 of 3 entailment answers" in mumbled.stderr
    assert not (tmp_path / "hmm" / "codebook.json").exists()
    assert "Task was destroyed" not in parsed.stderr + mumbled.stderr
