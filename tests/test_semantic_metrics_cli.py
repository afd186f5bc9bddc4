"""`forgegate semantic metrics`: the issue's JSON shape, hand-computed values, refusals and file errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_helpers import run_cli_in_process
from semantic_helpers import T1, T2, metrics_args, rows_for, run_cli, standard_files, write_jsonl


def run_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                *extra: str) -> tuple[int, dict, str]:
    samples, relevance = standard_files(tmp_path)
    out = tmp_path / "out.json"
    code, stdout, stderr = run_cli(metrics_args(samples, relevance, out, *extra), capsys, monkeypatch)
    return code, json.loads(out.read_text()) if out.exists() else {}, stdout + stderr


@pytest.fixture(scope="module")
def standard(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict, str]:
    """``semantic metrics`` on the standard files with the default options, run once for the tests that only
    read its exit code, JSON and printed text (each run draws 10,000 bootstrap resamples)."""
    folder = tmp_path_factory.mktemp("standard")
    samples, relevance = standard_files(folder)
    out = folder / "out.json"
    proc = run_cli_in_process(*metrics_args(samples, relevance, out), env={"COLUMNS": "200"})
    return proc.returncode, json.loads(out.read_text()) if out.exists() else {}, proc.stdout + proc.stderr


def test_metrics_json_has_the_issue_shape_and_hand_computed_values(standard) -> None:
    code, result, text = standard
    assert code == 1, text  # HOLD: estimates with no pre-registered pass rule are never a pass
    assert result["gate"] == "HOLD"
    assert {"tasks", "across_tasks", "sensitivity"} <= set(result)
    t1 = result["tasks"]["t1"]
    assert set(t1) == {"conditions", "ES_LOSS", "REC_GAIN", "IRREV_OBS", "AGG_COVERAGE", "MINORITY_RECALL"}
    a = t1["conditions"]["A"]
    assert {"n", "k", "unmapped_rate", "support", "D_sem", "H_sem", "P"} <= set(a)
    assert (a["n"], a["k"], a["unmapped_rate"], a["support"]) == (64, 2, 2 / 64, ["c1", "c2", "c3"])
    assert a["D_sem"] == 3 and a["P"] == pytest.approx(60 / 62)
    assert t1["conditions"]["B"]["support"] == ["c1", "c2"]  # c3 has 1 sample, below k=2
    assert t1["ES_LOSS"]["value"] == pytest.approx(10 / 60)
    assert t1["REC_GAIN"]["value"] == pytest.approx(1.0)  # c3 back with exactly k=2 samples
    assert t1["IRREV_OBS"]["value"] == pytest.approx(0.0)
    low, high = t1["ES_LOSS"]["ci"]
    assert low <= 10 / 60 <= high and low < high
    assert "ES_LOSS" in text and "across 2 tasks" in text


def test_rec_gain_and_irrev_obs_are_json_null_when_nothing_is_lost(standard) -> None:
    _, result, _ = standard
    t2 = result["tasks"]["t2"]
    assert t2["ES_LOSS"]["value"] == 0.0
    assert t2["REC_GAIN"] == {"value": None, "ci": None, "na_resamples": t2["REC_GAIN"]["na_resamples"]}
    assert t2["IRREV_OBS"]["value"] is None
    assert result["across_tasks"]["REC_GAIN"]["n_tasks"] == 1  # the NA task is left out, not counted as 0


def test_unfiltered_analysis_is_reported_beside_the_filtered_one(standard) -> None:
    _, result, _ = standard
    unf = result["unfiltered"]["tasks"]["t1"]
    assert unf["ES_LOSS"]["value"] == pytest.approx(12 / 62)  # irrelevant c4 counts when every cluster is relevant
    assert unf["REC_GAIN"]["value"] == pytest.approx(10 / 12)
    assert unf["conditions"]["A"]["support"] == ["c1", "c2", "c3", "c4"]


def test_sensitivity_taus_are_always_reported_and_move_the_floor(standard) -> None:
    _, result, _ = standard
    assert set(result["sensitivity"]) == {"0.01", "0.03", "0.05"}
    at5 = result["sensitivity"]["0.05"]["tasks"]["t1"]
    assert at5["conditions"]["R"]["k"] == 4  # ceil(0.05 * 64)
    assert at5["REC_GAIN"]["value"] == 0.0  # c3's 2 samples in R no longer reach the floor
    assert set(result["unfiltered"]["sensitivity"]) == {"0.01", "0.03", "0.05"}


def test_same_seed_same_intervals_and_another_seed_moves_them(tmp_path, capsys, monkeypatch) -> None:
    _, first, _ = run_metrics(tmp_path, capsys, monkeypatch, "--seed", "5")
    _, again, _ = run_metrics(tmp_path, capsys, monkeypatch, "--seed", "5")
    _, other, _ = run_metrics(tmp_path, capsys, monkeypatch, "--seed", "6")
    ci = first["tasks"]["t1"]["conditions"]["A"]["ci"]["H_sem"]
    assert ci == again["tasks"]["t1"]["conditions"]["A"]["ci"]["H_sem"]
    assert ci != other["tasks"]["t1"]["conditions"]["A"]["ci"]["H_sem"]
    assert first["bootstrap"]["n_resamples"] == 10000 and first["bootstrap"]["method"] == "percentile"


def test_condition_under_64_samples_is_refused_for_confirmatory_use(tmp_path, capsys, monkeypatch) -> None:
    small = {"A": {"c1": 30, "c2": 10}, "B": {"c1": 40}, "R": {"c1": 30, "c2": 10}}
    samples, relevance = standard_files(tmp_path, {"t1": T1, "small": small})
    out = tmp_path / "out.json"
    code, _, err = run_cli(metrics_args(samples, relevance, out), capsys, monkeypatch)
    assert code == 2
    assert "refused for confirmatory use" in err and "'small' condition 'A': N=40" in err
    assert "--exploratory" in err and not out.exists()
    code, _, _ = run_cli(metrics_args(samples, relevance, out, "--exploratory"), capsys, monkeypatch)
    result = json.loads(out.read_text())
    assert code == 1 and result["mode"] == "exploratory"
    assert all(e["label"].startswith("exploratory") for e in result["endpoints"].values())


def test_task_missing_the_recovery_condition_is_incomplete(tmp_path, capsys, monkeypatch) -> None:
    samples, relevance = standard_files(tmp_path, {"t1": T1, "t3": {"A": T1["A"], "B": T1["B"]}})
    out = tmp_path / "out.json"
    code, _, _ = run_cli(metrics_args(samples, relevance, out), capsys, monkeypatch)
    result = json.loads(out.read_text())
    assert code == 3 and result["gate"] == "INCOMPLETE"
    assert result["tasks"]["t3"]["ES_LOSS"]["value"] is None


def test_malformed_sample_row_names_file_line_and_field(tmp_path, capsys, monkeypatch) -> None:
    rows = rows_for("t1", "A", {"c1": 2})
    rows.append({"task": "t1", "condition": "A", "sample": 9})
    samples = write_jsonl(tmp_path / "S.jsonl", rows)
    relevance = write_jsonl(tmp_path / "R.jsonl", [{"cluster": "c1", "relevant": 1}])
    code, _, err = run_cli(metrics_args(samples, relevance, tmp_path / "o.json"), capsys, monkeypatch)
    assert code == 2 and "S.jsonl:3: field 'cluster': required field is missing" in err


def test_relevance_outside_zero_one_and_missing_clusters_are_errors(tmp_path, capsys, monkeypatch) -> None:
    samples, _ = standard_files(tmp_path)
    bad = write_jsonl(tmp_path / "R.jsonl", [{"cluster": "c1", "relevant": 2}])
    code, _, err = run_cli(metrics_args(samples, bad, tmp_path / "o.json"), capsys, monkeypatch)
    assert code == 2 and "R.jsonl:1: field 'relevant'" in err
    partial = write_jsonl(tmp_path / "R.jsonl", [{"cluster": "c1", "relevant": 1}])
    code, _, err = run_cli(metrics_args(samples, partial, tmp_path / "o.json"), capsys, monkeypatch)
    assert code == 2 and "no relevance row for cluster(s) c2, c3, c4, c5" in err


def test_repeated_sample_is_an_error_naming_both_lines(tmp_path, capsys, monkeypatch) -> None:
    rows = rows_for("t1", "A", {"c1": 2}) + rows_for("t1", "A", {"c1": 1})
    samples = write_jsonl(tmp_path / "S.jsonl", rows)
    relevance = write_jsonl(tmp_path / "R.jsonl", [{"cluster": "c1", "relevant": 1}])
    code, _, err = run_cli(metrics_args(samples, relevance, tmp_path / "o.json"), capsys, monkeypatch)
    assert code == 2 and "S.jsonl:3: field 'sample'" in err and "repeats line 1" in err


def test_holm_adjusts_every_secondary_difference_upward(standard) -> None:
    _, result, _ = standard
    tests = result["holm"]["tests"]
    assert tests and result["holm"]["method"] == "holm"
    ps = sorted(t["p_boot"] for t in tests)
    m = len(ps)
    # Holm: the smallest p is multiplied by m (capped at 1)
    assert min(t["p_holm"] for t in tests) == pytest.approx(min(1.0, m * ps[0]))
    assert all(t["p_holm"] >= t["p_boot"] for t in tests)
    d = result["effects"]["t1"]["B-A"]["D_sem"]
    assert d["diff"]["value"] == -1.0 and d["ratio"]["value"] == pytest.approx(2 / 3)


def test_experiment_declares_the_primary_endpoint(tmp_path, capsys, monkeypatch) -> None:
    _, result, _ = run_metrics(tmp_path, capsys, monkeypatch, "--experiment", "E2_RECOVERY")
    assert result["endpoints"]["REC_GAIN"]["label"] == "primary"
    assert result["endpoints"]["D_sem"]["label"].startswith("secondary")
    code, _, text = run_metrics(tmp_path, capsys, monkeypatch, "--experiment", "E4_R_META")
    assert code == 2 and "structural-recurrence" in text


def test_declared_primary_endpoint_that_is_na_across_tasks_is_incomplete(tmp_path, capsys, monkeypatch) -> None:
    samples, relevance = standard_files(tmp_path, {"t2": T2})  # nothing is lost: REC_GAIN NA everywhere
    out = tmp_path / "out.json"
    code, stdout, _ = run_cli(metrics_args(samples, relevance, out, "--experiment", "E2_RECOVERY"), capsys,
                              monkeypatch)
    result = json.loads(out.read_text())
    assert result["across_tasks"]["REC_GAIN"]["value"] is None
    assert code == 3 and result["gate"] == "INCOMPLETE"
    assert any(r["rule"] == "primary REC_GAIN" and r["outcome"] == "INCOMPLETE" for r in result["reasons"])
    # without a declared experiment nothing is primary: the table is complete, still an estimate only
    code, _, _ = run_cli(metrics_args(samples, relevance, out), capsys, monkeypatch)
    assert code == 1 and json.loads(out.read_text())["gate"] == "HOLD"


def test_controls_run_every_time_and_pass(standard) -> None:
    _, result, _ = standard
    assert len(result["controls"]) == 4 and all(c["passed"] for c in result["controls"])


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "semantic"


def test_metrics_writes_html_and_markdown_reports_carrying_the_verdict(tmp_path, capsys, monkeypatch) -> None:
    html, markdown = tmp_path / "semantic.html", tmp_path / "semantic.md"
    code, stdout, stderr = run_cli(metrics_args(EXAMPLE / "samples.jsonl", EXAMPLE / "relevance.jsonl",
                                                tmp_path / "out.json", "--experiment", "E2_RECOVERY",
                                                "--html", str(html), "--markdown", str(markdown)),
                                   capsys, monkeypatch)
    assert code == 1 and json.loads((tmp_path / "out.json").read_text())["gate"] == "HOLD", stdout + stderr
    page = html.read_text(encoding="utf-8")
    assert '<span class="word" id="verdict-word">HOLD</span>' in page
    assert "ES_LOSS" in page
    assert "semantic metrics: **HOLD**" in markdown.read_text(encoding="utf-8")


def test_outside_a_plan_the_table_is_never_labelled_confirmatory(standard) -> None:
    # N = 64 in every condition and no --exploratory: before issue 36 this table said "confirmatory"; a samples
    # file and a bare relevance file show none of the confirmatory conditions a plan is checked for
    code, result, text = standard
    assert result["mode"] == "exploratory" and "outside a plan" in result["exploratory_reasons"][0]
    assert "confirmatory" not in result["mode"]
