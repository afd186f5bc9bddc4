"""T_GPT v0.8.1's quality guardrails: Q_task / Q_fact declared per task in the plan, scored per arm with
bootstrap CIs, and E1_STAGE's "with Q_task/Q_fact guardrails" as a flag when a stage change loses more
than the declared margin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forgegate.checks.quality import QUALITY_SCORERS
from forgegate.core.records import Completion
from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.errors import InputError
from forgegate.gate.semantic import quality_guardrails, with_quality_guardrails
from forgegate.metrics.generations import Generation
from forgegate.pipeline.plan.quality_scoring import check_quality_declarations, score_quality, write_review_sheets
from forgegate.plan import LoadedPlan, parse_plan_text
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.semantic.quality import QualityRequest, quality_table

SETTINGS = BootstrapSettings(seed=7, n_resamples=1000)
HELD = Verdict.combine([Reason("metrics-computed", Gate.HOLD, "an estimate: the operator decides")])
PROMPTS = {"colour": "Name a colour.", "sum": "What is 1200 + 34?"}

PLAN = """name = "quality-test"
seeds = { first = 1, count = 4 }

[sampling]
temperature = 0.7
max_tokens = 12

[fixture]
path = "tasks.jsonl"

[[arms]]
name = "A"
backend = "embedded"
role = "control"

[[arms]]
name = "B"
backend = "embedded"
role = "candidate"

[[arms]]
name = "R"
backend = "embedded"
role = "candidate"

[instruments.semantic]
reference = "A"
contracted = "B"
recovery = "R"
experiment = "E1_STAGE"
primary_endpoint = "ES_LOSS"
confirmatory = false
bootstrap_resamples = 1000
bootstrap_seed = 7
{quality}
[[comparisons]]
control = "A"
candidate = "B"
primary = "semantic.ES_LOSS"
"""

Q_TASK = """
[instruments.semantic.q_task]
margin = {margin}

[instruments.semantic.q_task.tasks.colour]
scorer = "battery-rule"
eval_type = "contains"
expected = ["red", "blue", "green"]

[instruments.semantic.q_task.tasks.sum]
scorer = "numeric"
answer = 1234
"""


def plan(quality: str, folder: Path = Path("plan.toml").parent) -> LoadedPlan:
    return parse_plan_text(folder / "plan.toml", PLAN.replace("{quality}", quality))


def completion(text: str) -> Completion:
    return Completion(text=text, tokens=3, token_source="tokenizer", finish="stop", latency_s=0.0)


def test_scorers_reuse_the_battery_rules_and_read_exact_and_numeric_answers() -> None:
    rule = QUALITY_SCORERS.get("battery-rule")
    decl = rule.declaration.model_validate({"scorer": "battery-rule", "eval_type": "contains", "expected": ["no"]})
    # the battery's word rule: "no" is found in "No." but not in "not"
    assert rule.score(decl, "Is it?", completion("No.")) == 1.0
    assert rule.score(decl, "Is it?", completion("It is not.")) == 0.0
    exact = QUALITY_SCORERS.get("exact")
    decl = exact.declaration.model_validate({"scorer": "exact", "answer": "Paris"})
    assert exact.score(decl, "Capital?", completion("**Paris.**")) == 1.0
    assert exact.score(decl, "Capital?", completion("Paris, France")) == 0.0
    numeric = QUALITY_SCORERS.get("numeric")
    decl = numeric.declaration.model_validate({"scorer": "numeric", "answer": 1234.0, "tolerance": 0.5})
    assert numeric.score(decl, "Sum?", completion("It is 1,234.")) == 1.0
    assert numeric.score(decl, "Sum?", completion("About 1200, I think 1234")) == 0.0  # the first number decides
    assert numeric.score(decl, "Sum?", completion("I cannot say")) == 0.0
    assert set(QUALITY_SCORERS.names()) == {"battery-rule", "exact", "numeric", "human-review"}


def test_q_task_per_arm_is_the_mean_score_with_a_percentile_ci_and_the_change_is_paired_by_task() -> None:
    scores = {"t1": {"A": [1, 1, 1, 0], "B": [1, 0, 0, 0]}, "t2": {"A": [1, 1, 1, 1], "B": [1, 1, 0, 0]}}
    table = quality_table(QualityRequest("Q_task", scores, ("A", "B"), "A", "B", SETTINGS, 0.1,
                                         {"t1": "exact", "t2": "exact"}))
    t1 = table["tasks"]["t1"]
    assert t1["A"]["value"] == pytest.approx(0.75) and t1["B"]["value"] == pytest.approx(0.25)
    assert t1["A"]["n"] == 4
    low, high = t1["A"]["ci"]
    assert 0.0 <= low <= 0.75 <= high <= 1.0 and low < high
    across = table["across_tasks"]
    assert across["A"]["value"] == pytest.approx(0.875) and across["B"]["value"] == pytest.approx(0.375)
    assert across["A"]["n_tasks"] == 2 and across["A"]["ci"] is not None
    change = table["change"]
    assert change["value"] == pytest.approx(-0.5) and change["loss"] == pytest.approx(0.5)
    assert change["ci"][0] <= -0.5 <= change["ci"][1]
    assert table["spec"] == "Task-success measure defined per task before confirmation."


def test_one_task_change_resamples_its_answers() -> None:
    scores = {"t1": {"A": [1, 1, 1, 1, 0, 1], "B": [0, 0, 1, 0, 0, 0]}}
    table = quality_table(QualityRequest("Q_task", scores, ("A", "B"), "A", "B", SETTINGS, None, {"t1": "exact"}))
    change = table["change"]
    assert change["value"] == pytest.approx(1 / 6 - 5 / 6)
    assert change["ci"] is not None and change["ci"][1] < 0
    assert change["bootstrap_unit"].startswith("generations")


def _table(loss: float, margin: float | None) -> dict[str, dict[str, object]]:
    change = {"reference": "A", "contracted": "B", "n_tasks": 2, "value": -loss, "ci": [-loss - 0.1, -loss + 0.1],
              "loss": loss}
    return {"Q_task": {"margin": margin, "change": change, "missing": []}}


def test_guardrail_flags_a_loss_beyond_the_margin_and_not_one_within_it() -> None:
    flagged = quality_guardrails(_table(0.30, 0.10))
    assert [(r.rule, r.outcome) for r in flagged] == [("semantic: Q_task guardrail", Gate.FAIL)]
    assert "flagged" in flagged[0].detail and flagged[0].numbers["margin"] == 0.10
    assert quality_guardrails(_table(0.0, 0.10))[0].outcome == Gate.PASS  # the interval reaches the margin, not past
    assert quality_guardrails(_table(-0.2, 0.05))[0].outcome == Gate.PASS  # a gain never flags
    # judged on its interval (issue 36): a point inside the margin whose interval reaches past it is not a pass
    near = quality_guardrails(_table(0.05, 0.10))[0]
    assert near.outcome == Gate.HOLD and near.numbers["loss_high"] == pytest.approx(0.15)
    assert "not shown within it" in near.detail
    assert quality_guardrails(_table(0.9, None))[0].outcome == Gate.PASS  # no margin: reported only
    held = HELD
    assert with_quality_guardrails(held, _table(0.30, 0.10)).gate == Gate.FAIL
    assert with_quality_guardrails(held, _table(0.05, 0.10)).gate == Gate.HOLD
    assert with_quality_guardrails(held, None) is held


def test_plan_declares_q_task_per_task_and_refuses_a_bad_declaration_at_its_line() -> None:
    loaded = plan(Q_TASK.replace("{margin}", "0.1"))
    q_task = loaded.plan.instruments.semantic.q_task  # type: ignore[union-attr]
    assert q_task is not None and q_task.scorer_names() == {"colour": "battery-rule", "sum": "numeric"}
    bad = Q_TASK.replace("{margin}", "0.1").replace('expected = ["red"', 'expectd = ["red"')
    with pytest.raises(InputError) as err:
        plan(bad)
    text = PLAN.replace("{quality}", bad)
    line = text.splitlines().index("[instruments.semantic.q_task.tasks.colour]") + 1
    assert err.value.line == line and "expectd" in str(err.value) and f"plan.toml:{line}" in str(err.value)
    with pytest.raises(InputError, match="'exakt' is not one of"):
        plan(Q_TASK.replace("{margin}", "0.1").replace('scorer = "numeric"', 'scorer = "exakt"'))
    with pytest.raises(InputError, match="margin"):  # E1_STAGE: a guardrail needs its margin
        plan(Q_TASK.replace("margin = {margin}\n", ""))
    with pytest.raises(InputError, match="confirmatory E1_STAGE needs its Q_task"):
        parse_plan_text(Path("plan.toml"), PLAN.replace("{quality}", "").replace(
            "confirmatory = false", 'confirmatory = true\ncodebook = "c.json"').replace("count = 4", "count = 64"))


def test_declared_tasks_must_be_fixture_tasks_and_q_task_covers_every_task() -> None:
    loaded = plan(Q_TASK.replace("{margin}", "0.1"))
    check_quality_declarations(loaded, ["colour", "sum"])
    with pytest.raises(InputError, match="no fixture task 'sum'"):
        check_quality_declarations(loaded, ["colour"])
    with pytest.raises(InputError, match="task.s. extra have no scorer"):
        check_quality_declarations(loaded, ["colour", "sum", "extra"])


def gens(task: str, texts: dict[str, list[str]]) -> list[Generation]:
    return [Generation(arm=arm, seed=seed, text=t, item=task, finish="stop", tokens=3)
            for arm, answers in texts.items() for seed, t in enumerate(answers, start=1)]


def test_a_plan_s_q_task_is_scored_per_arm_and_a_lost_stage_change_is_flagged(tmp_path: Path) -> None:
    loaded = plan(Q_TASK.replace("{margin}", "0.2"), tmp_path)
    rows = (gens("colour", {"A": ["Red", "blue", "Green.", "red"], "B": ["Red", "purple", "pink", "grey"],
                            "R": ["blue"] * 4})
            + gens("sum", {"A": ["1234", "1,234", "1234.", "1200"], "B": ["1234"] * 4, "R": ["12"] * 4}))
    quality = score_quality(loaded, rows, PROMPTS, tmp_path / "out", SETTINGS)
    assert quality is not None and set(quality) == {"Q_task"}
    table = quality["Q_task"]
    assert table["tasks"]["colour"]["A"]["value"] == 1.0 and table["tasks"]["colour"]["B"]["value"] == 0.25
    assert table["tasks"]["sum"]["A"]["value"] == 0.75 and table["tasks"]["sum"]["R"]["value"] == 0.0
    assert table["across_tasks"]["B"]["value"] == pytest.approx(0.625)
    assert table["change"]["loss"] == pytest.approx(0.25)  # (1.0 + 0.75) / 2 - (0.25 + 1.0) / 2
    [reason] = quality_guardrails(quality)
    assert reason.outcome == Gate.FAIL and "beyond the declared margin 0.2" in reason.detail


HUMAN = """
[instruments.semantic.q_task]
margin = 0.5

[instruments.semantic.q_task.tasks.colour]
scorer = "human-review"
sheet = "review/q_task.jsonl"

[instruments.semantic.q_task.tasks.sum]
scorer = "numeric"
answer = 1234
"""


def test_human_review_without_a_filled_sheet_is_incomplete_with_the_command_that_writes_it(tmp_path: Path) -> None:
    loaded = plan(HUMAN, tmp_path)
    out = tmp_path / "run.semantic"
    rows = gens("colour", {"A": ["Red", "blue"], "B": ["Red", "nothing"], "R": ["x", "y"]}) + gens(
        "sum", {"A": ["1234", "1234"], "B": ["1234", "1234"], "R": ["1", "1234"]})
    quality = score_quality(loaded, rows, PROMPTS, out, SETTINGS)
    assert quality is not None
    [missing] = quality["Q_task"]["missing"]
    assert missing["task"] == "colour" and "not found" in missing["why"]
    assert missing["command"] == f"forgegate semantic quality-sheet {tmp_path / 'plan.toml'}"
    verdict = with_quality_guardrails(HELD, quality)
    assert verdict.gate == Gate.INCOMPLETE
    assert any(r.outcome == Gate.INCOMPLETE and "forgegate semantic quality-sheet" in r.detail
               for r in verdict.reasons)
    guardrail = [r for r in quality_guardrails(quality) if r.rule == "semantic: Q_task guardrail"]
    assert [r.outcome for r in guardrail] == [Gate.INCOMPLETE]  # no "PASS: Q_task change" beside the INCOMPLETE
    assert "change not judged while task(s) 'colour' have no scores" in guardrail[0].detail
    # The command's work: a blinded sheet (no arm, no seed), its key beside the run store.
    [sheet] = write_review_sheets(loaded, rows, PROMPTS, out, seed=7)
    lines = [json.loads(x) for x in sheet.read_text().splitlines()]
    assert len(lines) == 6 and all(set(x) == {"row", "measure", "task", "prompt", "answer", "score"} for x in lines)
    assert all(x["score"] is None for x in lines)
    still = score_quality(loaded, rows, PROMPTS, out, SETTINGS)
    assert still is not None and "6 of 6 answers" in still["Q_task"]["missing"][0]["why"]
    # Filled: every answer naming a colour scores 1.
    filled = [{**x, "score": 1.0 if x["answer"] in ("Red", "blue") else 0.0} for x in lines]
    sheet.write_text("".join(json.dumps(x) + "\n" for x in filled))
    done = score_quality(loaded, rows, PROMPTS, out, SETTINGS)
    assert done is not None and done["Q_task"]["missing"] == []
    colour = done["Q_task"]["tasks"]["colour"]
    assert (colour["A"]["value"], colour["B"]["value"], colour["R"]["value"]) == (1.0, 0.5, 0.0)
    assert done["Q_task"]["sheets"]["review/q_task.jsonl"] is not None
    assert with_quality_guardrails(HELD, done).gate == Gate.HOLD  # loss 0.25 <= 0.5


def test_a_review_sheet_score_outside_0_to_1_is_refused_at_its_line(tmp_path: Path) -> None:
    loaded = plan(HUMAN, tmp_path)
    out = tmp_path / "run.semantic"
    rows = gens("colour", {"A": ["Red", "blue"], "B": ["Red", "x"]})
    [sheet] = write_review_sheets(loaded, rows, PROMPTS, out, seed=7)
    lines = [json.loads(x) for x in sheet.read_text().splitlines()]
    lines[2]["score"] = 2
    sheet.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(InputError) as err:
        score_quality(loaded, rows, PROMPTS, out, SETTINGS)
    assert err.value.line == 3 and "score" in str(err.value)
    with pytest.raises(Exception, match="exists"):  # a filled sheet is never overwritten
        write_review_sheets(loaded, rows, PROMPTS, out, seed=7)


Q_FACT = """
[instruments.semantic.q_fact]
margin = 0.1

[instruments.semantic.q_fact.tasks.sum]
scorer = "numeric"
answer = 1234
"""


def test_q_fact_covers_only_the_tasks_with_checkable_claims(tmp_path: Path) -> None:
    loaded = plan(Q_TASK.replace("{margin}", "0.5") + Q_FACT, tmp_path)
    check_quality_declarations(loaded, ["colour", "sum"])  # Q_fact need not name 'colour'
    rows = gens("sum", {"A": ["1234"] * 3, "B": ["1234", "99", "99"], "R": ["1234"] * 3}) + gens(
        "colour", {"A": ["red"] * 3, "B": ["red"] * 3, "R": ["red"] * 3})
    quality = score_quality(loaded, rows, PROMPTS, tmp_path / "out", SETTINGS)
    assert quality is not None and list(quality) == ["Q_task", "Q_fact"]
    fact = quality["Q_fact"]
    assert list(fact["tasks"]) == ["sum"] and fact["spec"].startswith("Factuality measure")
    assert fact["change"]["loss"] == pytest.approx(2 / 3)
    gates = {r.rule: r.outcome for r in quality_guardrails(quality)}
    # Q_task loses 1/3 on average (within the 0.5 margin), but over two tasks its interval reaches 2/3: judged on
    # its interval it is not shown within the margin (issue 36), so HOLD, not PASS
    task = quality["Q_task"]["change"]
    assert task["loss"] == pytest.approx(1 / 3) and -task["ci"][0] > 0.5
    assert gates == {"semantic: Q_task guardrail": Gate.HOLD, "semantic: Q_fact guardrail": Gate.FAIL}


def test_quality_sheet_command_refuses_a_plan_with_no_stored_answers(tmp_path: Path) -> None:
    from eval_helpers import run_cli_in_process

    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "plan.toml").write_text(PLAN.replace("{quality}", HUMAN))
    (folder / "tasks.jsonl").write_text("".join(json.dumps({"id": k, "prompt": v}) + "\n" for k, v in PROMPTS.items()))
    result = run_cli_in_process("semantic", "quality-sheet", str(folder / "plan.toml"), "--store",
                                str(tmp_path / "runs"))
    assert result.returncode == 2 and "run the plan first" in " ".join(result.stderr.split()), result.stderr
