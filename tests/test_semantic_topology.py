"""E3_TOPOLOGY as a plan experiment: AGG_COVERAGE (primary) and MINORITY_RECALL (secondary, Holm) between two
declared aggregates, refused unless they are matched on total tokens."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from semantic_helpers import RELEVANCE, T1, T2, write_jsonl

from forgegate.core.records import Completion, GenerationRequest, StoredResponse
from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.errors import InputError
from forgegate.pipeline.plan.semantic import SemanticOutcome, endpoint_value
from forgegate.pipeline.semantic.table import gate_table
from forgegate.pipeline.semantic.topology_inputs import finish_topology, topology_inputs
from forgegate.plan.instruments import SemanticParams
from forgegate.semantic import MetricsRequest, Roles, compute_metrics
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.store import RunStore

GROUPED = {task: {cond: [c for c, n in counts.items() for _ in range(n)] for cond, counts in table.items()}
           for task, table in (("t1", T1), ("t2", T2))}


def params(**aggregation: Any) -> SemanticParams:
    return SemanticParams.model_validate({
        "reference": "A", "contracted": "B", "recovery": "R", "confirmatory": False, "experiment": "E3_TOPOLOGY",
        "bootstrap_seed": 5, "bootstrap_resamples": 500,
        "aggregation": {"aggregates": "aggregates.jsonl", "control": "vote", "candidate": "merge",
                        "budget_tolerance": 0.1} | aggregation})


def write_aggregates(folder: Path, merge_tokens: int = 100) -> Path:
    """vote keeps each pool's commonest cluster (c1); merge keeps every cluster of the pool."""
    rows = []
    for task, table in GROUPED.items():
        for pool, labels in table.items():
            clusters = sorted(set(labels) - {"UNMAPPED"})
            rows.append({"task": task, "pool": pool, "aggregate": "vote", "clusters": ["c1"], "total_tokens": 100})
            rows.append({"task": task, "pool": pool, "aggregate": "merge", "clusters": clusters,
                         "total_tokens": merge_tokens})
    return write_jsonl(folder / "aggregates.jsonl", rows)


def plan_error(loc: tuple[str | int, ...], message: str, hint: str | None = None) -> InputError:
    """LoadedPlan.error without a plan file (its file:line mapping is tested with real plans elsewhere)."""
    return InputError("plan.toml", message, field=".".join(map(str, loc)), hint=hint)


def score(folder: Path, p: SemanticParams, stored: Sequence[StoredResponse] = ()
          ) -> tuple[dict[str, Any] | None, Verdict, dict[str, Any]]:
    loaded = SimpleNamespace(resolve=lambda written: folder / written, path=folder / "plan.toml", error=plan_error)
    inputs = topology_inputs(loaded, p, GROUPED, RELEVANCE, stored)  # type: ignore[arg-type]
    request = MetricsRequest(GROUPED, RELEVANCE, Roles("A", "B", "R"), BootstrapSettings(seed=5, n_resamples=500),
                             aggregates=inputs.pools, exploratory=True, experiment="E3_TOPOLOGY")
    metrics = gate_table(compute_metrics(request))  # the table as the plan's pipeline words it
    base = Verdict.combine([Reason("semantic: metrics-computed", Gate.HOLD, "estimate")])
    block, verdict = finish_topology(p, inputs, metrics, base)
    return block, verdict, metrics


def test_e3_primary_is_agg_coverage_candidate_minus_control_with_interval_and_budgets(tmp_path: Path) -> None:
    write_aggregates(tmp_path, merge_tokens=105)  # 5% apart: within the plan's 10%
    block, verdict, _ = score(tmp_path, params())
    assert block is not None and block["scored"] is True and verdict.gate is Gate.HOLD
    assert block["budgets"]["totals"] == {"vote": 600, "merge": 630} and block["budgets"]["matched"] is True
    assert block["budgets"]["gap"] == pytest.approx(30 / 630)
    assert block["budgets"]["per_task"]["t1"] == {"vote": 300, "merge": 315}
    # S+ per pool (k = 2 at N = 64, c4 irrelevant): merge covers all of it; vote covers c1's share.
    t1 = [1 - 30 / 60, 1 - 50 / 63, 1 - 40 / 62]
    t2 = [1 - 40 / 64] * 3
    expected = (sum(t1) / 3 + sum(t2) / 3) / 2
    diff = block["primary"]["difference"]
    assert block["primary"]["endpoint"] == "AGG_COVERAGE" and diff["value"] == pytest.approx(expected)
    low, high = diff["ci"]
    assert low <= diff["value"] <= high and low > 0  # merge - vote: positive, the sign is candidate - control
    assert block["primary"]["candidate"]["value"] == pytest.approx(1.0)
    secondary = block["secondary"][0]
    assert secondary["endpoint"] == "MINORITY_RECALL" and secondary["difference"]["ci"] is not None
    assert secondary["difference"]["p_holm"] == secondary["difference"]["p_boot"]  # a family of one
    outcome = SemanticOutcome({"across_tasks": {}}, {}, {}, tmp_path, None, verdict, topology=block)
    value = endpoint_value(outcome, "AGG_COVERAGE", "A", "B")
    assert value["value"] == pytest.approx(expected) and value["comparison"] == "merge - vote (aggregates)"


def test_e3_aggregates_not_matched_on_total_tokens_are_refused_with_both_budgets(tmp_path: Path) -> None:
    path = write_aggregates(tmp_path, merge_tokens=130)
    with pytest.raises(InputError) as err:
        score(tmp_path, params())
    text = str(err.value)
    assert err.value.field == "total_tokens" and str(path) in text
    assert "not matched on total tokens: vote 600, merge 780 (23.1% apart; the plan allows 10.0%)" in text
    block, _, _ = score(tmp_path, params(budget_tolerance=0.25))  # the plan's own pre-registered tolerance
    assert block is not None and block["budgets"]["matched"] is True


def store_rows(folder: Path, tokens: dict[str, tuple[int | None, int]], seeds: int = 3,
               failed: tuple[str, str] | None = None) -> list[StoredResponse]:
    """A real run store: arm -> (prompt tokens, output tokens) of each of its requests on each task."""
    with RunStore.open(folder / "run.sqlite") as store:
        for arm, (prompt_tokens, output) in tokens.items():
            for task in GROUPED:
                for seed in range(seeds):
                    request = GenerationRequest(prompt=f"{task} {arm}", max_tokens=32, seed=seed)
                    done = None if (arm, task) == failed else Completion(
                        text="x", tokens=output, token_source="embedded-tokens", finish="stop", latency_s=0.1,
                        prompt_tokens=prompt_tokens)
                    store.record(request_key=f"{arm}/{task}/{seed}", arm=arm, item_id=task, seed=seed,
                                 request=request, completion=done, error=None if done else "boom", attempts=1)
        return store.latest()


def plain_aggregates(folder: Path) -> Path:
    """The aggregates file without any total_tokens: the store gives the budgets."""
    path = write_aggregates(folder)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return write_jsonl(path, [{k: v for k, v in r.items() if k != "total_tokens"} for r in rows])


def test_e3_budgets_are_summed_from_the_run_stores_token_counts_of_each_aggregates_cost_arms(
        tmp_path: Path) -> None:
    plain_aggregates(tmp_path)
    # vote reads the 3 branches of arm A; merge reads arm B's and makes a summarising call per branch in arm S
    stored = store_rows(tmp_path, {"A": (10, 30), "B": (6, 20), "S": (4, 8)})
    cost_arms = {"vote": ["A"], "merge": ["B", "S"]}
    block, verdict, _ = score(tmp_path, params(cost_arms=cost_arms), stored)
    assert block is not None and block["scored"] is True and verdict.gate is Gate.HOLD
    budgets = block["budgets"]
    per_request = {"vote": 10 + 30, "merge": (6 + 20) + (4 + 8)}
    assert budgets["per_task"]["t1"] == {name: 3 * v for name, v in per_request.items()}
    assert budgets["totals"] == {name: 2 * 3 * v for name, v in per_request.items()}
    assert budgets["gap"] == pytest.approx((40 - 38) / 40) and budgets["matched"] is True
    assert budgets["source"].startswith("the run store") and budgets["cost_arms"] == cost_arms
    stored = store_rows(tmp_path / "wide", {"A": (10, 30), "B": (6, 20), "S": (4, 20)})  # merge spends 50 vs 40
    with pytest.raises(InputError) as err:
        score(tmp_path, params(cost_arms=cost_arms), stored)
    assert err.value.field == "instruments.semantic.aggregation.cost_arms"
    assert "not matched on total tokens: vote 240, merge 300 (20.0% apart; the plan allows 10.0%)" in str(err.value)
    assert "the totals are the run store's" in str(err.value)


def test_e3_budgets_the_store_cannot_give_leave_e3_incomplete_never_a_self_reported_figure(tmp_path: Path) -> None:
    plain_aggregates(tmp_path)
    cost_arms = {"vote": ["A"], "merge": ["B"]}
    unreported = store_rows(tmp_path / "a", {"A": (None, 30), "B": (10, 30)})  # no prompt count from the backend
    block, verdict, _ = score(tmp_path, params(cost_arms=cost_arms), unreported)
    assert block is not None and block["scored"] is False and verdict.gate is Gate.INCOMPLETE
    assert "have no input or output token count" in verdict.reasons[-1].detail
    failed = store_rows(tmp_path / "b", {"A": (10, 30), "B": (10, 30)}, failed=("B", "t2"))
    _, verdict, _ = score(tmp_path, params(cost_arms=cost_arms), failed)
    assert verdict.gate is Gate.INCOMPLETE
    assert "3 request(s) of arm 'B' on task 't2' failed" in verdict.reasons[-1].detail
    absent = store_rows(tmp_path / "c", {"A": (10, 30)})
    _, verdict, _ = score(tmp_path, params(cost_arms=cost_arms), absent)
    assert verdict.gate is Gate.INCOMPLETE and "arm 'B' (a cost arm of 'merge') has no stored request" in \
        verdict.reasons[-1].detail


def test_e3_rows_state_total_tokens_only_where_no_store_gives_them(tmp_path: Path) -> None:
    write_aggregates(tmp_path)  # with total_tokens
    stored = store_rows(tmp_path, {"A": (10, 30), "B": (10, 30)})
    with pytest.raises(InputError, match="total_tokens is taken from the run store here") as err:
        score(tmp_path, params(cost_arms={"vote": ["A"], "merge": ["B"]}), stored)
    assert err.value.line == 1
    path = plain_aggregates(tmp_path)  # without, and no cost_arms: nothing says what they cost
    with pytest.raises(InputError, match="states no total_tokens") as err:
        score(tmp_path, params())
    assert err.value.line == 1 and str(path) in str(err.value)


def test_e3_without_its_aggregates_file_is_incomplete_and_a_compared_aggregate_must_cover_every_task(
        tmp_path: Path) -> None:
    block, verdict, metrics = score(tmp_path, params())
    assert block is not None and block["scored"] is False and "primary" not in block
    assert verdict.gate is Gate.INCOMPLETE and "aggregates.jsonl not found" in verdict.reasons[-1].detail
    assert metrics["gate"] == "INCOMPLETE"  # the library's word too: AGG_COVERAGE has no value
    path = write_aggregates(tmp_path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    write_jsonl(path, [r for r in rows if not (r["task"] == "t2" and r["aggregate"] == "merge")])
    with pytest.raises(InputError, match="'merge' has no row for task"):
        score(tmp_path, params())


def test_a_plan_declares_e3_with_its_aggregation_and_only_e3_takes_it() -> None:
    with pytest.raises(ValueError, match="needs \\[instruments.semantic.aggregation\\]"):
        SemanticParams.model_validate({"reference": "A", "contracted": "B", "confirmatory": False,
                                       "experiment": "E3_TOPOLOGY", "bootstrap_seed": 1})
    with pytest.raises(ValueError, match="only E3_TOPOLOGY takes it"):
        SemanticParams.model_validate({**params().model_dump(), "experiment": "E2_RECOVERY"})
    with pytest.raises(ValueError, match="two different aggregates"):
        params(candidate="vote")
    with pytest.raises(ValueError, match="budget_tolerance"):
        SemanticParams.model_validate({**params().model_dump(), "aggregation": {
            "aggregates": "a.jsonl", "control": "vote", "candidate": "merge"}})


@pytest.mark.slow  # loads MiniLM (the draft codebook's embedding judge)
def test_forgegate_run_scores_e3_once_its_aggregates_exist_without_regenerating_budgets_from_its_store(
        tmp_path: Path) -> None:
    from test_run_semantic import DEV_T1, DEV_T2, SeededOllamaServer, answers_for, plan_text, run, write_plan

    from forgegate.plan import lock_plan

    seeds = list(range(1, 9))
    e3 = ('[instruments.semantic.aggregation]\naggregates = "aggregates.jsonl"\ncontrol = "vote"\n'
          'candidate = "merge"\nbudget_tolerance = 0.1\ncost_arms = { vote = ["A"], merge = ["B"] }\n')
    text = plan_text("tgpt-e3", seeds, "URL").replace('experiment = "E2_RECOVERY"', 'experiment = "E3_TOPOLOGY"')
    text = text.replace("semantic.REC_GAIN", "semantic.AGG_COVERAGE")
    text = text.replace("\n[[comparisons]]", e3 + "\n[[comparisons]]")
    with SeededOllamaServer(answers_for(seeds, DEV_T1, DEV_T2)) as server:
        plan = write_plan(tmp_path / "p", text.replace("URL", server.url))
        lock_plan(plan)
        code, output, _ = run(plan, tmp_path / "runs", tmp_path / "first.json")
        first = json.loads((tmp_path / "first.json").read_text())
        assert code == 3 and first["semantic"]["topology"]["scored"] is False, output
        assert "E3_TOPOLOGY not scored" in output  # the terminal reads the typed block
        # the aggregates are made from the run's own pools: here, from the assignments it wrote
        assignments = Path(first["semantic"]["metrics"]["inputs"]["assignments"])
        pools: dict[tuple[str, str], set[str]] = {}
        for line in assignments.read_text().splitlines():
            row = json.loads(line)
            pools.setdefault((row["task"], row["condition"]), set()).add(row["cluster"])
        write_jsonl(tmp_path / "p" / "aggregates.jsonl", [
            {"task": t, "pool": p, "aggregate": agg, "clusters": sorted(cl) if agg == "merge" else [f"{t}:c1"],
             } for (t, p), cl in sorted(pools.items()) for agg in ("vote", "merge")])
        posts = len(server.generation_requests())
        assert posts == 2 * 3 * 8  # tasks x arms x seeds
        code, output, _ = run(plan, tmp_path / "runs", tmp_path / "second.json")
        assert len(server.generation_requests()) == posts  # nothing regenerated
    second = json.loads((tmp_path / "second.json").read_text())
    topo = second["semantic"]["topology"]
    (store_path,) = (tmp_path / "runs").glob("*.sqlite")
    with RunStore.open(store_path, readonly=True) as store:
        spent = {arm: sum(r.prompt_tokens + r.tokens for r in store.latest() if r.arm == arm) for arm in "AB"}
    assert topo["scored"] is True and topo["budgets"]["totals"] == {"vote": spent["A"], "merge": spent["B"]}
    assert topo["budgets"]["source"].startswith("the run store")
    flat = " ".join(output.split())
    assert f"total tokens: vote {spent['A']}, merge {spent['B']}" in flat and "from the run store's input" in flat
    assert topo["primary"]["difference"]["value"] > 0 and topo["primary"]["difference"]["ci"] is not None
    comp = second["comparisons"][0]
    assert comp["primary_value"]["value"] == pytest.approx(topo["primary"]["difference"]["value"])
    assert code == 1 and comp["gate"] == "HOLD", output
    assert topo["aggregates_sha256"] and topo["primary"]["ratio"]["ci"] is not None
    # the coverage file E3's primary rests on is sealed into the lock: edited after, the run is refused (exit 2)
    aggregates = tmp_path / "p" / "aggregates.jsonl"
    aggregates.write_text(aggregates.read_text().replace(":c1\"]", ":c2\"]", 1))
    _, _, refused = run(plan, tmp_path / "runs", tmp_path / "third.json")  # the app itself, without main()'s exit 2
    from forgegate.cli.failure import user_fault
    from forgegate.plan import LockRefusedError

    assert isinstance(refused, LockRefusedError) and "changed after the run first scored it" in str(refused)
    assert user_fault(refused) == str(refused)  # the console entry prints it and exits 2
