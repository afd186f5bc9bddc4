"""`forgegate run PLAN` with Q_task declared: per arm beside the semantic metrics (JSON, terminal, HTML), a
human-review task INCOMPLETE until `forgegate semantic quality-sheet` writes its sheet and a person fills it,
then the guardrail flags the stage change that lost more than the margin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_run_semantic import DEV_T1, DEV_T2, SeededOllamaServer, answers_for, plan_text, run, write_plan
from typer.testing import CliRunner

from forgegate.cli.main import app
from forgegate.plan import lock_plan
from forgegate.report import write_reports

Q_TASK = """
[instruments.semantic.q_task]
margin = 0.3

[instruments.semantic.q_task.tasks.t1]
scorer = "battery-rule"
eval_type = "contains"
expected = "qubits"

[instruments.semantic.q_task.tasks.t2]
scorer = "human-review"
sheet = "review.jsonl"
"""


@pytest.mark.slow  # loads MiniLM (the embedding judge)
def test_q_task_beside_the_metrics_human_review_incomplete_then_flagged(tmp_path: Path) -> None:
    seeds = list(range(1, 9))
    with SeededOllamaServer(answers_for(seeds, DEV_T1, DEV_T2)) as server:
        plan = write_plan(tmp_path / "p", plan_text("tgpt-quality", seeds, server.url, Q_TASK))
        lock_plan(plan)
        code, output, _ = run(plan, tmp_path / "runs", tmp_path / "first.json")
    sem = json.loads((tmp_path / "first.json").read_text())["semantic"]
    table = sem["quality"]["Q_task"]
    # t1: "qubits" is in Y only: A has it twice in 8, B never, R twice.
    assert [table["tasks"]["t1"][a]["value"] for a in "ABR"] == [0.25, 0.0, 0.25]
    assert table["tasks"]["t1"]["A"]["ci"] is not None
    assert table["missing"][0]["task"] == "t2"
    command = f"forgegate semantic quality-sheet {plan}"
    assert table["missing"][0]["command"] == command
    assert code == 3 and sem["gate"] == "INCOMPLETE"
    flat = " ".join(output.split())
    assert "Q_task across tasks: A 0.250" in flat and command in flat
    # The command writes the blinded sheet; the reviewer scores A's answers 1 and B's and R's 0 (from the key).
    written = CliRunner().invoke(app, ["semantic", "quality-sheet", str(plan), "--store", str(tmp_path / "runs")])
    assert written.exit_code == 0, written.output
    rows = [json.loads(x) for x in (plan.parent / "review.jsonl").read_text().splitlines()]
    assert len(rows) == 24 and all("condition" not in r and r["score"] is None for r in rows)
    [key_file] = (tmp_path / "runs").glob("*.semantic/quality-review-key-*.json")
    key = json.loads(key_file.read_text())["rows"]
    (plan.parent / "review.jsonl").write_text("".join(
        json.dumps({**r, "score": 1.0 if key[r["row"]]["condition"] == "A" else 0.0}) + "\n" for r in rows))
    code, output, _ = run(plan, tmp_path / "runs", tmp_path / "second.json")
    result = json.loads((tmp_path / "second.json").read_text())
    table = result["semantic"]["quality"]["Q_task"]
    assert table["missing"] == [] and table["tasks"]["t2"]["A"]["value"] == 1.0
    assert table["change"]["loss"] == pytest.approx((0.25 + 1.0) / 2)
    guard = [r for r in result["semantic"]["reasons"] if r["rule"] == "semantic: Q_task guardrail"]
    assert guard[0]["outcome"] == "FAIL" and "beyond the declared margin 0.3" in guard[0]["detail"]
    assert result["semantic"]["gate"] == "FAIL" and code == 1
    html = tmp_path / "report.html"
    write_reports(result, html, None)
    page = html.read_text()
    assert 'id="quality"' in page and "Task-success measure defined per task before confirmation." in page
