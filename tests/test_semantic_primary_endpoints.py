"""Each experiment carries one primary endpoint: the spec's metric (E2, E3) or the plan's declared one (E1, E4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from semantic_helpers import metrics_args, run_cli, standard_files
from test_run_semantic import plan_text

from forgegate.core.experiments import primary_endpoint
from forgegate.errors import UsageError


def run_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                *extra: str) -> tuple[int, dict, str]:
    samples, relevance = standard_files(tmp_path)
    out = tmp_path / "out.json"
    code, stdout, stderr = run_cli(metrics_args(samples, relevance, out, *extra), capsys, monkeypatch)
    return code, json.loads(out.read_text()) if out.exists() else {}, stdout + stderr


def test_e1_stage_without_a_declared_endpoint_is_refused_quoting_the_spec() -> None:
    with pytest.raises(UsageError, match="change in ES_LOSS/REC_GAIN across adjacent post-training stages"):
        primary_endpoint("E1_STAGE")
    with pytest.raises(UsageError, match="not one of ES_LOSS, REC_GAIN"):
        primary_endpoint("E1_STAGE", "D_sem")
    assert primary_endpoint("E1_STAGE", "ES_LOSS") == "ES_LOSS"
    assert primary_endpoint("E1_STAGE", "REC_GAIN") == "REC_GAIN"


def test_e4_r_meta_takes_a_declared_spec_metric_and_refuses_anything_else() -> None:
    with pytest.raises(UsageError, match="structural-recurrence rate"):
        primary_endpoint("E4_R_META")
    with pytest.raises(UsageError, match="not one of"):
        primary_endpoint("E4_R_META", "recurrence")
    assert primary_endpoint("E4_R_META", "REC_GAIN") == "REC_GAIN"


def test_e2_and_e3_keep_the_spec_endpoint_and_refuse_a_contradicting_declaration() -> None:
    assert primary_endpoint("E2_RECOVERY") == "REC_GAIN"
    assert primary_endpoint("E3_TOPOLOGY") == "AGG_COVERAGE"
    assert primary_endpoint("E2_RECOVERY", "REC_GAIN") == "REC_GAIN"
    with pytest.raises(UsageError, match="contradicts"):
        primary_endpoint("E2_RECOVERY", "ES_LOSS")


def test_e1_declared_es_loss_is_the_primary_label_and_decides_na(tmp_path, capsys, monkeypatch) -> None:
    code, result, text = run_metrics(tmp_path, capsys, monkeypatch, "--experiment", "E1_STAGE",
                                     "--primary-endpoint", "ES_LOSS")
    assert code == 1, text  # complete: an estimate with no pass rule is HOLD
    assert result["endpoints"]["ES_LOSS"]["label"] == "primary"
    assert result["endpoints"]["REC_GAIN"]["label"].startswith("secondary")
    declared = result["primary_endpoint"]
    assert declared["endpoint"] == "ES_LOSS" and declared["source"].startswith("plan declaration")
    assert "adjacent" in declared["spec"]


def test_e4_declared_rec_gain_is_the_primary_label_with_the_spec_words(tmp_path, capsys, monkeypatch) -> None:
    code, result, _ = run_metrics(tmp_path, capsys, monkeypatch, "--experiment", "E4_R_META",
                                  "--primary-endpoint", "REC_GAIN")
    assert result["endpoints"]["REC_GAIN"]["label"] == "primary"
    assert result["primary_endpoint"]["source"].startswith("plan declaration")
    assert "not computed here" in result["primary_endpoint"]["how"]
    assert result["across_tasks"]["REC_GAIN"]["value"] == pytest.approx(1.0) and code == 1  # a number: HOLD
    # a per-condition metric has no single across-task value to be primary
    code, _, text = run_metrics(tmp_path, capsys, monkeypatch, "--experiment", "E4_R_META",
                                "--primary-endpoint", "D_sem")
    assert code == 2 and "not one of" in text


def test_e4_declared_agg_coverage_without_aggregates_is_refused(tmp_path, capsys, monkeypatch) -> None:
    code, _, text = run_metrics(tmp_path, capsys, monkeypatch, "--experiment", "E4_R_META",
                                "--primary-endpoint", "AGG_COVERAGE")
    assert code == 2 and "--aggregates" in text


def test_e1_on_the_command_line_without_a_declaration_exits_2(tmp_path, capsys, monkeypatch) -> None:
    code, result, text = run_metrics(tmp_path, capsys, monkeypatch, "--experiment", "E1_STAGE")
    assert code == 2 and result == {} and "declare primary_endpoint" in " ".join(text.split())


def test_a_plan_declaring_e1_without_its_endpoint_is_refused_at_the_field(tmp_path: Path) -> None:
    from forgegate.errors import InputError
    from forgegate.plan.load import parse_plan_text

    text = plan_text("e1", [1, 2], "http://127.0.0.1:9").replace('experiment = "E2_RECOVERY"',
                                                                  'experiment = "E1_STAGE"')
    with pytest.raises(InputError, match="declare primary_endpoint as one of ES_LOSS, REC_GAIN") as err:
        parse_plan_text(tmp_path / "plan.toml", text)
    assert err.value.field == "instruments.semantic.primary_endpoint"
    declared = parse_plan_text(tmp_path / "plan.toml", text.replace(
        'experiment = "E1_STAGE"', 'experiment = "E1_STAGE"\nprimary_endpoint = "REC_GAIN"')).plan
    assert declared.instruments.semantic is not None
    assert declared.instruments.semantic.primary_endpoint == "REC_GAIN"
