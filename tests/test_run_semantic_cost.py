"""The semantic instrument's cost guardrails per condition: tokens in and out, wall clock, structure, money.

The fake Ollama server reports ``prompt_eval_count`` and ``eval_count`` as real Ollama does (one token per
run of non-space characters), so every count and every price below is computed by hand.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from pydantic import ValidationError
from test_run_semantic import DEV_T1, DEV_T2, SeededOllamaServer, answers_for, plan_text, run, write_plan

from forgegate.core.records import Completion, GenerationRequest
from forgegate.pipeline.plan.cost import condition_cost
from forgegate.plan import lock_plan
from forgegate.plan.load import parse_plan_text
from forgegate.report.plan_terminal_parts import cost_text
from forgegate.results.plan_cost import PlanCost
from forgegate.store import RunStore
from forgegate.store.runstore import SCHEMA

PRICES = ('[instruments.semantic.prices]\ncurrency = "EUR"\n'
          '[instruments.semantic.prices.arms.A]\ninput_per_million = 2.0\noutput_per_million = 10.0\n'
          '[instruments.semantic.prices.models."tgpt:latest"]\ninput_per_million = 1.0\noutput_per_million = 3.0\n')
# Input tokens: "Say something about fruit." 4, "... the sky." 5; B adds "Be brief." (2); R adds 2 + 6 more.
INPUT = {"A": 8 * 4 + 8 * 5, "B": 8 * 6 + 8 * 7, "R": 8 * 12 + 8 * 13}
# Output tokens: X1, X2 5 words, Y 7, Z 8 (DEV_T1 and DEV_T2 of test_run_semantic).
OUTPUT = {"A": (2 * 5 + 2 * 5 + 2 * 7 + 2 * 8) + (6 * 5 + 2 * 8), "B": 8 * 5 + 8 * 5, "R": (6 * 5 + 2 * 7) + 8 * 5}


def e1_plan(seeds: list[int], url: str, extra: str) -> str:
    text = plan_text("tgpt-e1", seeds, url, extra)
    return (text.replace('experiment = "E2_RECOVERY"', 'experiment = "E1_STAGE"\nprimary_endpoint = "ES_LOSS"')
            .replace('primary = "semantic.REC_GAIN"', 'primary = "semantic.ES_LOSS"'))


@pytest.mark.slow  # it loads a real model (found by the fast-lane guard in tests/slow.py)
def test_prompt_tokens_are_stored_and_priced_per_condition_and_e1_uses_its_declared_endpoint(tmp_path: Path) -> None:
    seeds = list(range(1, 9))
    with SeededOllamaServer(answers_for(seeds, DEV_T1, DEV_T2)) as server:
        plan = write_plan(tmp_path / "p", e1_plan(seeds, server.url, PRICES))
        lock_plan(plan)
        code, output, exc = run(plan, tmp_path / "runs", tmp_path / "out.json")
    assert exc is None or isinstance(exc, SystemExit), exc
    (store_path,) = (tmp_path / "runs").glob("*.sqlite")
    with RunStore.open(store_path, create=False) as store:
        stored = {(r.arm, r.item_id): r.prompt_tokens for r in store.latest()}
    assert stored[("A", "t1")] == 4 and stored[("B", "t2")] == 7 and stored[("R", "t1")] == 12
    result = json.loads((tmp_path / "out.json").read_text())
    cost = result["semantic"]["cost"]
    for arm in "ABR":
        assert cost[arm]["input_tokens"] == {"value": INPUT[arm], "status": "complete", "reported_requests": 16,
                                             "source": cost[arm]["input_tokens"]["source"]}
        assert cost[arm]["output_tokens"]["value"] == OUTPUT[arm]
        assert cost[arm]["total_tokens"]["value"] == INPUT[arm] + OUTPUT[arm]
        assert cost[arm]["serial_depth"] == 1 and cost[arm]["parallelizable_calls"] == 16
        wall = cost[arm]["wall_clock_latency"]
        assert wall["value_s"] is not None and wall["value_s"] >= 0
    money = {arm: cost[arm]["estimated_monetary_cost"] for arm in "ABR"}
    assert money["A"]["value"] == pytest.approx((72 * 2.0 + 96 * 10.0) / 1e6) and money["A"]["currency"] == "EUR"
    assert money["B"]["value"] == pytest.approx((104 * 1.0 + 80 * 3.0) / 1e6)  # the model's price
    assert money["R"]["value"] == pytest.approx((200 * 1.0 + 84 * 3.0) / 1e6)
    assert "0.001104 EUR" in " ".join(output.split())
    # E1_STAGE: the spec names no single metric, the plan declared ES_LOSS, and it is the table's primary
    metrics = result["semantic"]["metrics"]
    assert metrics["experiment"] == "E1_STAGE" and metrics["primary_endpoint"]["endpoint"] == "ES_LOSS"
    assert metrics["primary_endpoint"]["source"].startswith("plan declaration")
    assert metrics["endpoints"]["ES_LOSS"]["label"].startswith("exploratory (N below")  # N = 8 < 64
    assert result["semantic"]["experiment_note"] is None
    assert result["comparisons"][0]["primary_value"]["value"] == pytest.approx(0.375)
    assert code == 1  # HOLD: an estimate with no pass rule


PLAN = plan_text("tgpt-cost", [1, 2], "http://127.0.0.1:9")


def stored_rows(tmp_path: Path, prompt_tokens: list[int | None]) -> list:
    request = GenerationRequest(prompt="Say something about fruit.", max_tokens=8, seed=1)
    with RunStore.open(tmp_path / "run.sqlite") as store:
        for i, count in enumerate(prompt_tokens):
            answer = Completion(text="one two", tokens=2, token_source="stream-chunks", finish="stop",
                                latency_s=0.5, prompt_tokens=count)
            store.record(request_key=f"k{i}", arm="A", item_id="t1", seed=i, request=request, completion=answer,
                         error=None, attempts=1)
        return store.latest()


def test_no_price_table_reports_null_cost_with_the_reason(tmp_path: Path) -> None:
    plan = parse_plan_text(tmp_path / "plan.toml", PLAN).plan
    cost = condition_cost(plan, stored_rows(tmp_path, [4, 4]), n_items=2)
    money = cost["A"]["estimated_monetary_cost"]
    assert money["value"] is None and money["note"].startswith("no price table")
    assert cost["A"]["input_tokens"]["value"] == 8 and cost["A"]["parallelizable_calls"] == 4


def test_unreported_prompt_tokens_make_totals_partial_never_zero(tmp_path: Path) -> None:
    plan = parse_plan_text(tmp_path / "plan.toml", PLAN + PRICES.replace("[instruments", "\n[instruments", 1)).plan
    cost = condition_cost(plan, stored_rows(tmp_path, [4, None]), n_items=1)["A"]
    assert cost["input_tokens"]["value"] is None and cost["input_tokens"]["status"] == "partial"
    assert cost["input_tokens"]["sum_of_reported"] == 4 and cost["input_tokens"]["reported_requests"] == 1
    assert cost["total_tokens"]["value"] is None and cost["total_tokens"]["status"] == "partial"
    assert cost["output_tokens"]["value"] == 4
    money = cost["estimated_monetary_cost"]
    assert money["value"] is None and money["note"].startswith("partial") and money["currency"] == "EUR"


def test_the_cost_block_is_typed_keeps_its_json_and_prints_nulls_with_their_reason(tmp_path: Path) -> None:
    """``semantic.cost`` is a ``PlanCost`` (issue 34, item 3): the pipeline's block validates into it, its dump is
    the block byte for byte (a complete count has no ``sum_of_reported``), a block that is not an arm's cost is
    refused, and the terminal line reads the model's attributes."""
    plan = parse_plan_text(tmp_path / "plan.toml", PLAN + PRICES.replace("[instruments", "\n[instruments", 1)).plan
    block = condition_cost(plan, stored_rows(tmp_path, [4, None]), n_items=1)
    typed = PlanCost.model_validate(block)
    assert json.dumps(typed.to_json()) == json.dumps(block) and list(typed.arms()) == ["A"]
    arm = typed.arms()["A"]
    assert arm.input_tokens.status == "partial" and arm.output_tokens.sum_of_reported is None
    line = cost_text(arm)
    assert "input partial (null), output 4," in line and "cost null: partial" in line
    with pytest.raises(ValidationError):
        PlanCost.model_validate(block | {"B": {"requests": 1}})


def test_a_store_written_before_the_new_columns_still_opens_and_gains_them(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old_schema = SCHEMA.replace(",\n    prompt_tokens INTEGER,\n    finished_at REAL", "")
    assert "prompt_tokens" not in old_schema and "finished_at" not in old_schema
    db = sqlite3.connect(path)  # the responses table as the first release wrote it
    db.executescript(old_schema)
    db.execute("INSERT INTO responses (request_key, arm, item_id, seed, request_json, prompt, response, tokens, "
               "finish, latency_s, attempts, created) VALUES ('k', 'A', 't1', 1, ?, 'p', 'one two', 2, 'stop', "
               "0.5, 1, '2026-01-01T00:00:00+00:00')",
               (GenerationRequest(prompt="p", max_tokens=8).model_dump_json(),))
    db.commit()
    db.close()
    with RunStore.open(path, create=False) as store:
        (row,) = store.latest()
    assert row.prompt_tokens is None and row.finished_at is None and row.response == "one two"
    plan = parse_plan_text(tmp_path / "plan.toml", PLAN).plan
    cost = condition_cost(plan, [row], n_items=1)["A"]
    assert cost["input_tokens"]["status"] == "not reported" and cost["input_tokens"]["value"] is None
    wall = cost["wall_clock_latency"]
    assert wall["value_s"] is None and wall["sum_of_request_latencies_s"] == 0.5


def test_a_price_table_missing_an_arm_is_refused_with_its_line(tmp_path: Path) -> None:
    from forgegate.errors import InputError
    from forgegate.plan.load import check_cross_references

    only_a = '[instruments.semantic.prices]\ncurrency = "EUR"\n[instruments.semantic.prices.arms.A]\n' \
             'input_per_million = 2.0\noutput_per_million = 10.0\n'
    text = PLAN.replace("[[comparisons]]", only_a + "\n[[comparisons]]")
    with pytest.raises(InputError, match="no price for arm\\(s\\) B, R") as err:
        check_cross_references(parse_plan_text(tmp_path / "plan.toml", text))
    assert err.value.field == "instruments.semantic.prices"
    assert err.value.line == text.splitlines().index("[instruments.semantic.prices]") + 1
