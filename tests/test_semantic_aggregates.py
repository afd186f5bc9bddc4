"""AGG_COVERAGE and MINORITY_RECALL from an aggregates file, with paired pool resampling."""

from __future__ import annotations

import json

import pytest
from semantic_helpers import RELEVANCE, T1, metrics_args, rows_for, run_cli, write_jsonl

POOLS = {"P1": {"c1": 4, "c2": 2, "c3": 2}, "P2": {"c1": 6, "c2": 2}, "P3": {"c1": 8}}
REPRESENTED = {("P1", "vote"): ["c1"], ("P1", "merge"): ["c1", "c2", "c3"], ("P2", "vote"): ["c1"],
               ("P2", "merge"): ["c1", "c2"], ("P3", "vote"): ["c1"], ("P3", "merge"): ["c1", "UNMAPPED"]}


def files(tmp_path, represented=REPRESENTED):
    conds = {**T1, **POOLS}
    rows = [r for cond, counts in conds.items() for r in rows_for("t1", cond, counts)]
    samples = write_jsonl(tmp_path / "S.jsonl", rows)
    relevance = write_jsonl(tmp_path / "R.jsonl", [{"cluster": c, "relevant": v} for c, v in RELEVANCE.items()])
    agg = write_jsonl(tmp_path / "Y.jsonl", [{"task": "t1", "pool": p, "aggregate": a, "clusters": c}
                                             for (p, a), c in represented.items()])
    return samples, relevance, agg


def test_agg_coverage_and_minority_recall_per_aggregate_match_hand_values(tmp_path, capsys, monkeypatch) -> None:
    samples, relevance, agg = files(tmp_path)
    out = tmp_path / "o.json"
    args = metrics_args(samples, relevance, out, "--aggregates", str(agg), "--exploratory")
    code, _, err = run_cli(args, capsys, monkeypatch)
    assert code == 1, err  # HOLD: an estimate with no pass rule
    result = json.loads(out.read_text())
    cov = result["tasks"]["t1"]["AGG_COVERAGE"]
    assert cov["vote"]["pools"] == {"P1": 0.5, "P2": 0.75, "P3": 1.0}
    assert cov["vote"]["value"] == pytest.approx(0.75) and cov["merge"]["value"] == 1.0
    lo, hi = cov["vote"]["ci"]
    assert 0.5 <= lo < hi <= 1.0
    minority = result["tasks"]["t1"]["MINORITY_RECALL"]
    # P1 minority {c2, c3}, P2 {c2}, P3 {c1}: vote keeps only P3's
    assert minority["vote"]["pools"] == {"P1": 0.0, "P2": 0.0, "P3": 1.0}
    diff = result["effects"]["t1"]["AGG_COVERAGE"]["vote-merge"]["diff"]
    assert diff["value"] == pytest.approx(-0.25) and diff["ci"][1] <= 0.0  # paired: every pool favours merge
    assert result["across_tasks"]["AGG_COVERAGE"]["vote"]["value"] == pytest.approx(0.75)


def test_pool_must_be_a_condition_and_grid_complete(tmp_path, capsys, monkeypatch) -> None:
    samples, relevance, agg = files(tmp_path, {**REPRESENTED, ("P9", "vote"): ["c1"]})
    code, _, err = run_cli(metrics_args(samples, relevance, tmp_path / "o.json", "--aggregates", str(agg),
                                        "--exploratory"), capsys, monkeypatch)
    assert code == 2 and "Y.jsonl:7: field 'pool'" in err
    partial = {k: v for k, v in REPRESENTED.items() if k != ("P2", "merge")}
    samples, relevance, agg = files(tmp_path, partial)
    code, _, err = run_cli(metrics_args(samples, relevance, tmp_path / "o.json", "--aggregates", str(agg),
                                        "--exploratory"), capsys, monkeypatch)
    assert code == 2 and "aggregate 'merge' has no row for pool 'P2'" in err


def test_topology_experiment_needs_aggregates(tmp_path, capsys, monkeypatch) -> None:
    samples, relevance, _ = files(tmp_path)
    code, _, err = run_cli(metrics_args(samples, relevance, tmp_path / "o.json", "--exploratory",
                                        "--experiment", "E3_TOPOLOGY"), capsys, monkeypatch)
    assert code == 2 and "--aggregates" in err


def budgeted(tmp_path, tokens: dict[str, int] | None):
    """The files with every aggregate row's total_tokens (None: the rows state none, as before issue 36)."""
    samples, relevance, agg = files(tmp_path)
    if tokens is not None:
        write_jsonl(agg, [{"task": "t1", "pool": p, "aggregate": a, "clusters": c, "total_tokens": tokens[a]}
                          for (p, a), c in REPRESENTED.items()])
    return samples, relevance, agg


def test_topology_experiment_holds_the_aggregates_to_a_matched_token_budget(tmp_path, capsys, monkeypatch) -> None:
    def metrics(tokens: dict[str, int] | None) -> tuple[int, str]:
        samples, relevance, agg = budgeted(tmp_path, tokens)
        code, _, err = run_cli(metrics_args(samples, relevance, tmp_path / "o.json", "--aggregates", str(agg),
                                            "--exploratory", "--experiment", "E3_TOPOLOGY"), capsys, monkeypatch)
        return code, " ".join(err.split())

    code, err = metrics(None)  # "AGG_COVERAGE at matched total-token budget": a file without budgets is refused
    assert code == 2 and "total_tokens" in err
    code, err = metrics({"vote": 100, "merge": 300})  # 300 vs 900 over three pools: 66.7% apart
    assert code == 2 and "not matched on total tokens" in err and "66.7% apart" in err and "allows 5.0%" in err
    code, err = metrics({"vote": 100, "merge": 104})  # 3.8% apart: matched
    assert code == 1, err  # HOLD: an estimate with no pass rule


def run_store(path, tokens: dict[str, tuple[int | None, int]], seeds: int = 3):
    """A real run store: arm -> (prompt tokens, output tokens) of each of its requests on task t1."""
    from forgegate.core.records import Completion, GenerationRequest
    from forgegate.store import RunStore

    with RunStore.open(path) as store:
        for arm, (prompt_tokens, output) in tokens.items():
            for seed in range(seeds):
                store.record(request_key=f"{arm}/{seed}", arm=arm, item_id="t1", seed=seed,
                             request=GenerationRequest(prompt=f"t1 {arm}", max_tokens=32, seed=seed),
                             completion=Completion(text="x", tokens=output, token_source="embedded-tokens",
                                                   finish="stop", latency_s=0.1, prompt_tokens=prompt_tokens),
                             error=None, attempts=1)
    return path


def test_topology_budgets_come_from_the_run_store_it_is_given_or_the_table_says_they_are_self_reported(
        tmp_path, capsys, monkeypatch) -> None:
    samples, relevance, agg = files(tmp_path)  # rows without total_tokens
    cost = ("--cost-arms", "vote=branches", "--cost-arms", "merge=branches,summariser")

    def metrics(store, *extra: str) -> tuple[int, str]:
        code, _, err = run_cli(metrics_args(samples, relevance, tmp_path / "o.json", "--aggregates", str(agg),
                                            "--exploratory", "--experiment", "E3_TOPOLOGY", "--store", str(store),
                                            *extra), capsys, monkeypatch)
        return code, " ".join(err.split())

    # vote costs the 3 branches (40 tokens each), merge those and 3 summarising calls of 2: 126 vs 120, 4.8% apart
    matched = run_store(tmp_path / "matched.sqlite", {"branches": (10, 30), "summariser": (1, 1)})
    code, err = metrics(matched, *cost)
    assert code == 1, err  # HOLD: matched, an estimate with no pass rule
    result = json.loads((tmp_path / "o.json").read_text())
    assert result["inputs"]["store"] == str(matched) and result["inputs"]["budget_source"].startswith("the run store")
    assert not any("self-reported" in r for r in result["exploratory_reasons"])
    wide = run_store(tmp_path / "wide.sqlite", {"branches": (10, 30), "summariser": (5, 5)})  # 150 vs 120
    code, err = metrics(wide, *cost)
    assert code == 2 and "not matched on total tokens: merge 150, vote 120 (20.0% apart" in err, err
    uncounted = run_store(tmp_path / "uncounted.sqlite", {"branches": (None, 30), "summariser": (1, 1)})
    code, err = metrics(uncounted, *cost)
    assert code == 2 and "E3's budgets cannot come from the run store" in err and "no input or output token" in err
    code, err = metrics(matched, "--cost-arms", "vote=branches")
    assert code == 2 and "aggregate 'merge' of" in err and "has no --cost-arms" in err
    samples, relevance, agg = budgeted(tmp_path, {"vote": 100, "merge": 104})  # rows stating total_tokens too
    code, err = metrics(matched, *cost)
    assert code == 2 and "total_tokens is taken from the run store here" in err
    # no store: the rows' own figures are checked, and the table says they are self-reported
    code, _, err = run_cli(metrics_args(samples, relevance, tmp_path / "o.json", "--aggregates", str(agg),
                                        "--exploratory", "--experiment", "E3_TOPOLOGY"), capsys, monkeypatch)
    result = json.loads((tmp_path / "o.json").read_text())
    assert code == 1 and result["inputs"]["store"] is None
    assert any("self-reported total_tokens" in r for r in result["exploratory_reasons"])
    code, _, err = run_cli(metrics_args(samples, relevance, tmp_path / "o.json", "--aggregates", str(agg),
                                        "--exploratory", "--experiment", "E3_TOPOLOGY", *cost), capsys, monkeypatch)
    assert code == 2 and "give the store with --store" in err


def test_the_tables_are_typed_and_dump_the_librarys_json_key_for_key(tmp_path) -> None:
    """``tasks``, ``across_tasks``, ``sensitivity``, ``unfiltered`` and ``effects`` are ``results.semantic_tables``
    models (issue 34, item 3): the library's table validates into them and dumps back the same JSON, in the same
    key order (pool cells, effects with and without a ratio, NA-share cells included); a report reads attributes."""
    from forgegate.pipeline.semantic.table import gate_table
    from forgegate.results import SemanticMetricsResult
    from forgegate.semantic import Roles, metrics_from_files

    samples, relevance, agg = files(tmp_path)
    table = metrics_from_files(samples, relevance, Roles("A", "B", "R"), aggregates=agg, seed=0, exploratory=True,
                               n_resamples=200)
    result = SemanticMetricsResult.of(gate_table(table))
    dumped = result.to_json()
    for name in ("tasks", "across_tasks", "sensitivity", "unfiltered", "effects"):
        assert json.dumps(dumped[name]) == json.dumps(table.body[name]), name
    block = result.tasks["t1"]
    assert block.AGG_COVERAGE["vote"].pools == {"P1": 0.5, "P2": 0.75, "P3": 1.0}
    assert block.REC_GAIN.na_resamples is not None and block.ES_LOSS.na_resamples is None
    assert result.effects["t1"]["AGG_COVERAGE"]["vote-merge"].diff.value == pytest.approx(-0.25)
    assert result.across_tasks.pair("ES_LOSS") == result.across_tasks.ES_LOSS
