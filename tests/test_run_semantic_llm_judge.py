"""A plan whose frozen codebook names the llm judge: ``forgegate run`` asks that judge through the run engine, at the
server the codebook recorded, into the run's judge store (issue 34 item 2).

Generation and the judge are both fake Ollama servers (tests/backend_servers.py): no Ollama runs here, and the judge
must fail on cue. A judge that fails for good leaves the plan INCOMPLETE (exit 3), never a pass; the same command
run again once the judge answers scores the plan and asks the judge only what its store does not hold.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from test_run_semantic import DEV_T1, DEV_T2, TASKS, SeededOllamaServer, answers_for, plan_text, run, write_plan
from typer.testing import CliRunner

from forgegate.cli.main import app
from forgegate.plan import lock_plan

JUDGE_MODELS = {"judge:latest": "sha256:" + "1" * 64}


def _freeze_llm_codebook(tmp_path: Path, judge_url: str) -> Path:
    """A codebook built and frozen by ``semantic cluster`` under the llm judge at ``judge_url`` (which answers
    'entailment' to everything: one cluster per task)."""
    samples, questions = tmp_path / "dev.jsonl", tmp_path / "q.jsonl"
    samples.write_text("".join(json.dumps({"task": t, "condition": "A", "sample": i, "text": f"dev answer {t} {i}"})
                               + "\n" for t in TASKS for i in range(2)), encoding="utf-8")
    questions.write_text("".join(json.dumps({"task": t, "question": q}) + "\n" for t, q in TASKS.items()),
                         encoding="utf-8")
    made = CliRunner().invoke(app, ["semantic", "cluster", "--samples", str(samples), "--questions", str(questions),
                                    "--out", str(tmp_path / "book"), "--judge", "llm", "--backend", "ollama",
                                    "--model", "judge", "--base-url", judge_url, "--no-embedding"])
    assert made.exit_code == 0, made.output
    return tmp_path / "book" / "codebook.json"


@pytest.mark.slow  # three plan runs and the judge's retry backoff (about 20 s on a loaded machine)
def test_a_plans_llm_judge_that_fails_for_good_is_incomplete_and_the_rerun_asks_only_what_is_missing(
        tmp_path: Path) -> None:
    seeds = list(range(1, 9))
    with FakeOllamaServer(Behaviour(default="entailment", models=JUDGE_MODELS)) as judge, \
            SeededOllamaServer(answers_for(seeds, DEV_T1, DEV_T2)) as model:
        book = _freeze_llm_codebook(tmp_path, judge.url)
        assert json.loads(book.read_text())["rule"]["judge"]["base_urls"] == [judge.url]
        folder = tmp_path / "plan"
        plan = write_plan(folder, plan_text("tgpt-llm-judge", seeds, model.url, f'codebook = "{book}"\n'))
        lock_plan(plan)
        judge.behaviour = Behaviour(default="entailment", fail_first=10**6, models=JUDGE_MODELS)
        asked_at_freeze = len(judge.generation_requests())
        code, output, _ = run(plan, tmp_path / "runs", tmp_path / "failed.json")
        failed = json.loads((tmp_path / "failed.json").read_text())
        assert len(judge.generation_requests()) > asked_at_freeze  # the judge was asked, at the recorded server

        judge.behaviour = Behaviour(default="entailment", models=JUDGE_MODELS)
        before_rerun = len(judge.generation_requests())
        code2, output2, _ = run(plan, tmp_path / "runs", tmp_path / "scored.json")
        asked_rerun = len(judge.generation_requests()) - before_rerun
        code3, _, _ = run(plan, tmp_path / "runs", tmp_path / "again.json")
        asked_third = len(judge.generation_requests()) - before_rerun - asked_rerun
    assert code == 3 and failed["gate"] == "INCOMPLETE", output
    assert failed["semantic"]["gate"] == "INCOMPLETE" and failed["semantic"]["metrics"] is None
    assert any("failed for good" in r["detail"] for r in failed["semantic"]["reasons"])
    scored = json.loads((tmp_path / "scored.json").read_text())
    # With answers the table is computed. (Its word is still INCOMPLETE here, for another reason: a judge that
    # says 'entailment' to everything leaves one cluster per task, so ES_LOSS is 0 and REC_GAIN NA.)
    assert scored["semantic"]["metrics"] is not None and scored["semantic"]["codebook"]["frozen"] is True, output2
    assert not any("failed for good" in r["detail"] for r in scored["semantic"]["reasons"])
    assert scored["semantic"]["metrics"]["tasks"]["t1"]["conditions"]["A"]["counts"] == {"t1:c1": 8, "UNMAPPED": 0}
    assert asked_rerun > 0 and asked_third == 0  # every judge answer of the second run came back from its store
    assert code3 == code2 and json.loads((tmp_path / "again.json").read_text())["semantic"]["metrics"] == \
        scored["semantic"]["metrics"]
