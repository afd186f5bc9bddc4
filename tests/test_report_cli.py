"""`forgegate report RUN_OR_JSON --html OUT --markdown OUT`: inputs, outputs and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from report_helpers import ADVERSARIAL, GOOD, parse, run_cli, stored_run

from forgegate.store import RunMeta, RunStore


def test_report_of_a_stored_run_rescores_it_and_writes_both_files(tmp_path: Path) -> None:
    store_path, battery, gate = stored_run(tmp_path, ADVERSARIAL)
    html, md = tmp_path / "out" / "r.html", tmp_path / "out" / "r.md"
    code, out = run_cli("report", "eval-report0", "--store", store_path.parent, "--gate-config", gate,
                        "--html", html, "--markdown", md)
    assert code == 0, out  # the report was written: rendering a FAIL is not the gate (issue 45)
    assert "FAIL" in out
    page = html.read_text(encoding="utf-8")
    assert 'id="verdict-word">FAIL<' in page and "<svg" in page
    with RunStore.open(store_path, create=False) as store:
        assert str(store.meta().created) in "".join(parse(page).text)  # the run's date, from its store
    assert md.read_text(encoding="utf-8").startswith("### ❌ Eval under gate 'report-test' (not GLOSS v2): **FAIL**")


def test_report_of_a_result_json_renders_it_as_written(tmp_path: Path) -> None:
    store_path, _, gate = stored_run(tmp_path, GOOD)
    result = tmp_path / "result.json"
    code, out = run_cli("rescore", str(store_path), "--gate-config", gate, "--json", result)
    assert code == 0, out
    html = tmp_path / "r.html"
    code, out = run_cli("report", result, "--html", html)
    assert code == 0, out
    assert 'id="verdict-word">PASS<' in html.read_text(encoding="utf-8")
    assert json.loads(result.read_text())["gate"] == "PASS"


def test_report_without_an_output_is_a_usage_error(tmp_path: Path) -> None:
    store_path, _, gate = stored_run(tmp_path, GOOD)
    code, out = run_cli("report", str(store_path), "--gate-config", gate)
    assert code == 2 and "--html" in out


def test_report_of_a_file_that_is_no_result_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"gate": "PASS"', encoding="utf-8")
    code, out = run_cli("report", bad, "--html", tmp_path / "x.html")
    assert code == 2 and "bad JSON" in out
    bad.write_text('{"hello": 1}', encoding="utf-8")
    code, out = run_cli("report", bad, "--html", tmp_path / "x.html")
    assert code == 2 and "gate" in out
    assert not (tmp_path / "x.html").exists()


def test_report_of_a_plan_store_asks_for_its_result_json(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "plan-x.sqlite"
    with RunStore.open(path) as store:
        store.init_meta(RunMeta(kind="plan", run_id="plan-x", plan_name="x"))
    code, out = run_cli("report", "plan-x", "--store", path.parent, "--html", tmp_path / "x.html")
    assert code == 2 and "--json" in out


def test_report_of_a_probe_record_says_where_probes_are_shown(tmp_path: Path) -> None:
    """A probe record is a result kind no report section renders: a clean refusal (exit 2), not a half report."""
    from forgegate.core.verdict import Gate
    from forgegate.core.version import __version__
    from forgegate.results import SCHEMA_VERSION, ProbeRecord

    probe = ProbeRecord(
        kind="probe", schema_version=SCHEMA_VERSION, forgegate_version=__version__,
        created="2026-11-30T00:00:00+00:00", source="watch", step=4, epoch=None, checkpoint="checkpoint-4",
        model="m", run_id="r", store="s", eval_loss=None, items=11, answered=11, correct=3, accuracy=3 / 11, loops=0,
        stop_failures=0, walls=1, wall_breaks=0, failure_modes=[], mode_counts={}, controls_passed=True,
        gate=Gate.FAIL, elapsed_s=1.0)
    path = tmp_path / "probe.json"
    path.write_text(probe.model_dump_json(), encoding="utf-8")
    code, out = run_cli("report", path, "--html", tmp_path / "x.html")
    assert code == 2, out
    assert "a probe result: reports render eval, live, plan" in " ".join(out.split())
    assert not (tmp_path / "x.html").exists()
