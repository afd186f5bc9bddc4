"""A confirmatory plan's Q_fact "where the task has facts" and E3's store-taken token budget (issue 36).

T_GPT v0.8.1: Q_fact is the "Factuality measure used only on tasks with externally checkable factual claims";
E3_TOPOLOGY's primary is "AGG_COVERAGE at matched total-token budget". Built on the confirmatory copy of
``examples/tgpt`` that ``test_plan_confirmatory`` makes; each test breaks one condition and checks the refusal
names the field's line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_plan_confirmatory import confirmatory, refusal

from forgegate.errors import InputError
from forgegate.pipeline.plan.quality_scoring import check_quality_declarations
from forgegate.plan import load_plan
from tests.plan_helpers import line_of

TASKS = ["colour", "animal", "breakfast"]
Q_FACT = ('[instruments.semantic.q_fact]\n{margin}\n[instruments.semantic.q_fact.tasks.colour]\n'
          'scorer = "battery-rule"\neval_type = "contains"\nexpected = ["red", "blue"]\n\n')


def with_q_fact(margin: str = "margin = 0.1") -> tuple[str, str]:
    return "[[comparisons]]", Q_FACT.format(margin=margin) + "[[comparisons]]"


def test_a_confirmatory_plan_says_which_tasks_have_facts(tmp_path: Path) -> None:
    err, text = refusal(confirmatory(tmp_path, (("factual_tasks = []", ""),)))
    assert "which tasks make externally checkable factual claims (factual_tasks; [] when none does)" in str(err)
    assert err.line == line_of(text, "[instruments.semantic]")


def test_q_fact_is_required_on_every_task_declared_factual_with_its_margin(tmp_path: Path) -> None:
    factual = ("factual_tasks = []", 'factual_tasks = ["colour", "animal"]')
    err, text = refusal(confirmatory(tmp_path / "a", (factual,)))
    assert "task(s) colour, animal make factual claims, and the plan declares no Q_fact" in str(err)
    assert err.line == line_of(text, "factual_tasks = ")
    err, text = refusal(confirmatory(tmp_path / "b", (factual, with_q_fact(margin=""))))
    assert "the Q_fact guardrail needs its 'margin'" in str(err)
    assert err.line == line_of(text, "[instruments.semantic.q_fact]")
    err, text = refusal(confirmatory(tmp_path / "c", (factual, with_q_fact())))
    assert "factual task(s) animal have no Q_fact scorer" in str(err)
    assert err.line == line_of(text, "[instruments.semantic.q_fact]")  # its tasks table: the header above it
    only_colour = ("factual_tasks = []", 'factual_tasks = ["colour"]')
    err, _ = refusal(confirmatory(tmp_path / "d", (only_colour, with_q_fact())))  # declared and covered
    assert "factual" not in str(err) and "Q_fact" not in str(err)


def test_q_fact_scores_only_tasks_declared_factual_and_those_are_fixture_tasks(tmp_path: Path) -> None:
    """Any plan, confirmatory or not: where factual_tasks is declared, Q_fact on another task is refused."""
    plan = confirmatory(tmp_path / "a", (("factual_tasks = []", 'factual_tasks = ["animal"]'), with_q_fact()))
    with pytest.raises(InputError) as info:
        check_quality_declarations(load_plan(plan), TASKS)
    assert "Q_fact scores task 'colour', which factual_tasks does not list" in str(info.value)
    assert info.value.line == line_of(plan.read_text(), "[instruments.semantic.q_fact.tasks.colour]")
    plan = confirmatory(tmp_path / "b", (("factual_tasks = []", 'factual_tasks = ["weather"]'),))
    with pytest.raises(InputError) as info:
        check_quality_declarations(load_plan(plan), TASKS)
    assert "no fixture task 'weather'" in str(info.value)
    assert info.value.line == line_of(plan.read_text(), "factual_tasks = ")
    check_quality_declarations(load_plan(confirmatory(tmp_path / "c")), TASKS)  # [] with no Q_fact: nothing to say


def e3(aggregation: str) -> tuple[tuple[str, str], ...]:
    """The confirmatory example turned E3_TOPOLOGY with the given aggregation table."""
    return (('experiment = "E2_RECOVERY"', 'experiment = "E3_TOPOLOGY"'),
            ('primary = "semantic.REC_GAIN"', 'primary = "semantic.AGG_COVERAGE"'),
            ("[[comparisons]]", "[instruments.semantic.aggregation]\n" + aggregation + "\n[[comparisons]]"))


AGG = 'aggregates = "aggregates.jsonl"\ncontrol = "vote"\ncandidate = "merge"\n'


def test_a_confirmatory_e3_takes_its_token_totals_from_the_store_at_a_matched_budget(tmp_path: Path) -> None:
    err, text = refusal(confirmatory(tmp_path / "a", e3(AGG + "budget_tolerance = 0.2\n")))
    assert "budget_tolerance 0.2 is not T_GPT's \"matched total-token budget\"" in str(err)
    assert "at most 0.05" in str(err) and err.line == line_of(text, "budget_tolerance = 0.2")
    err, text = refusal(confirmatory(tmp_path / "b", e3(AGG + "budget_tolerance = 0.05\n")))
    assert "takes each aggregate's token total from the run store, not from the aggregates file" in str(err)
    assert err.line == line_of(text, "[instruments.semantic.aggregation]")
    unknown = 'cost_arms = { vote = ["A"], merge = ["A", "summariser"] }\n'
    err, text = refusal(confirmatory(tmp_path / "c", e3(AGG + "budget_tolerance = 0.05\n" + unknown)))
    assert "no arm named 'summariser': a cost arm of aggregate 'merge' is an arm of this plan" in str(err)
    assert err.line == line_of(text, "cost_arms = ")
    known = 'cost_arms = { vote = ["A"], merge = ["B"] }\n'
    err, _ = refusal(confirmatory(tmp_path / "d", e3(AGG + "budget_tolerance = 0.05\n" + known)))
    assert "cost" not in str(err) and "budget" not in str(err)  # the budget holds: another condition speaks


def test_cost_arms_name_exactly_the_two_compared_aggregates() -> None:
    from forgegate.plan.topology import AggregationParams

    base = {"aggregates": "a.jsonl", "control": "vote", "candidate": "merge", "budget_tolerance": 0.05}
    with pytest.raises(ValueError, match="cost_arms names the arms of each compared aggregate"):
        AggregationParams.model_validate(base | {"cost_arms": {"vote": ["A"]}})
    with pytest.raises(ValueError, match="cost_arms.merge: name each arm"):
        AggregationParams.model_validate(base | {"cost_arms": {"vote": ["A"], "merge": []}})
    assert AggregationParams.model_validate(base | {"cost_arms": {"vote": ["A"], "merge": ["A", "B"]}}).cost_arms
