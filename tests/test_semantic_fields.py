"""T_GPT v0.8.1 field types: every semantic result states its field, and results of different fields are not
compared unless a plan names the measurement bridge ("FIELD_TOK != FIELD_SEM != FIELD_TRAJ != FIELD_VIS.
Cross-level claims require an explicit measurement bridge.")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from semantic_helpers import metrics_args, run_cli, standard_files

from forgegate.errors import InputError
from forgegate.plan import PRESETS, parse_plan_text


@pytest.fixture
def result(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Path:
    samples, relevance = standard_files(tmp_path)
    out = tmp_path / "sem.json"
    code, _, err = run_cli(metrics_args(samples, relevance, out, "--seed", "3"), capsys, monkeypatch)
    assert code in (1, 3), err
    return out


def with_changes(src: Path, dst: Path, **changes: object) -> Path:
    dst.write_text(json.dumps(json.loads(src.read_text()) | changes))
    return dst


def test_a_semantic_metrics_result_states_its_field(result: Path) -> None:
    payload = json.loads(result.read_text())
    assert payload["field"] == "FIELD_SEM" and payload["bridges"] == []


def test_results_of_one_field_are_set_side_by_side(result: Path, tmp_path, capsys, monkeypatch) -> None:
    code, out, err = run_cli(["semantic", "compare", str(result), str(result), "--endpoint", "ES_LOSS"],
                             capsys, monkeypatch)
    assert code == 0, err
    assert "field: FIELD_SEM" in out and out.count("ES_LOSS 0.") == 2


def test_comparing_results_of_different_fields_is_refused(result: Path, tmp_path, capsys, monkeypatch) -> None:
    tok = with_changes(result, tmp_path / "tok.json", field="FIELD_TOK")
    code, _, err = run_cli(["semantic", "compare", str(result), str(tok)], capsys, monkeypatch)
    flat = " ".join(err.split())
    assert code == 2
    assert "measures FIELD_SEM" in flat and "measures FIELD_TOK" in flat
    assert "Cross-level claims require an explicit measurement bridge" in flat
    assert "[[instruments.semantic.bridges]]" in flat


def bridge_plan(folder: Path) -> Path:
    """The tgpt preset with a FIELD_TOK / FIELD_SEM bridge declared under [instruments.semantic]."""
    head, tail = PRESETS["tgpt"].split("[[comparisons]]", 1)
    bridge = ('[[instruments.semantic.bridges]]\nfields = ["FIELD_TOK", "FIELD_SEM"]\n'
              'how = "token mass summed per frozen cluster"\n\n')
    plan = folder / "bridged.toml"
    plan.write_text(head + bridge + "[[comparisons]]" + tail, encoding="utf-8")
    return plan


def test_a_bridge_the_plan_names_lets_the_fields_be_compared(result: Path, tmp_path, capsys, monkeypatch) -> None:
    tok = with_changes(result, tmp_path / "tok.json", field="FIELD_TOK")
    code, out, err = run_cli(["semantic", "compare", str(result), str(tok), "--plan", str(bridge_plan(tmp_path))],
                             capsys, monkeypatch)
    assert code == 0, err
    assert "through the plan's bridge: token mass summed per frozen cluster" in " ".join(out.split())


def test_a_bridge_written_into_a_result_file_is_not_a_declared_bridge(result: Path, tmp_path, capsys,
                                                                      monkeypatch) -> None:
    bridge = {"fields": ["FIELD_TOK", "FIELD_SEM"], "how": "token mass summed per frozen cluster"}
    tok = with_changes(result, tmp_path / "tok.json", field="FIELD_TOK", bridges=[bridge])
    forged = with_changes(result, tmp_path / "sem.json", bridges=[bridge])
    code, _, err = run_cli(["semantic", "compare", str(forged), str(tok)], capsys, monkeypatch)
    assert code == 2 and "Cross-level claims require an explicit measurement bridge" in " ".join(err.split())


def test_an_unknown_endpoint_is_refused_naming_the_known_ones(result: Path, capsys, monkeypatch) -> None:
    code, out, err = run_cli(["semantic", "compare", str(result), str(result), "--endpoint", "FOO"], capsys,
                             monkeypatch)
    flat = " ".join((out + err).split())
    assert code == 2 and "'FOO' is not an endpoint" in flat and "ES_LOSS" in flat and "FOO NA" not in flat


def test_an_unknown_field_in_a_result_is_refused(result: Path, tmp_path, capsys, monkeypatch) -> None:
    odd = with_changes(result, tmp_path / "odd.json", field="FIELD_FOO")
    code, _, err = run_cli(["semantic", "compare", str(result), str(odd)], capsys, monkeypatch)
    assert code == 2 and "field" in err and "FIELD_FOO" in err


def test_a_plan_declares_bridges_between_two_different_fields() -> None:
    head, tail = PRESETS["tgpt"].split("[[comparisons]]", 1)  # the bridge belongs under [instruments.semantic]
    bridge = '[[instruments.semantic.bridges]]\nfields = ["FIELD_SEM", "FIELD_TOK"]\nhow = "token mass"\n\n'
    plan = parse_plan_text(Path("t.toml"), head + bridge + "[[comparisons]]" + tail).plan
    assert plan.instruments.semantic is not None
    assert plan.instruments.semantic.bridges[0].fields == ("FIELD_SEM", "FIELD_TOK")
    for bad, says in (('"FIELD_SEM"', "two different fields"), ('"FIELD_X"', "FIELD_X")):
        with pytest.raises(InputError) as err:
            parse_plan_text(Path("t.toml"), head + bridge.replace('"FIELD_TOK"', bad) + "[[comparisons]]" + tail)
        assert says in str(err.value) and err.value.line is not None


def test_a_pool_metric_is_set_side_by_side_per_aggregate_from_the_typed_table(tmp_path, capsys, monkeypatch) -> None:
    """``semantic compare`` reads the result's typed across-task cells: each aggregate's value with its CI, as the
    table holds it (the labels and numbers are read back from the JSON, not assumed)."""
    from test_semantic_aggregates import files

    samples, relevance, agg = files(tmp_path)
    out = tmp_path / "o.json"
    code, _, err = run_cli(metrics_args(samples, relevance, out, "--aggregates", str(agg), "--exploratory"),
                           capsys, monkeypatch)
    assert code == 1, err
    cells = json.loads(out.read_text())["across_tasks"]["AGG_COVERAGE"]
    code, shown, err = run_cli(["semantic", "compare", str(out), str(out), "--endpoint", "AGG_COVERAGE"], capsys,
                               monkeypatch)
    assert code == 0, err
    flat = " ".join(shown.split())
    assert cells  # the aggregates file gives the table its pool cells
    for name, cell in cells.items():
        ci = "" if cell["ci"] is None else f" [{cell['ci'][0]:.3f}, {cell['ci'][1]:.3f}]"
        shown_cell = re.escape(f"AGG_COVERAGE {name} {cell['value']:.3f}{ci}") + r"(?=;|\s|$)"
        assert len(re.findall(shown_cell, flat)) == 2, (name, flat)


def test_the_task_count_is_not_an_endpoint(result: Path, capsys, monkeypatch) -> None:
    """``n_tasks`` sits beside the metrics across tasks but is no metric: refused as an unknown endpoint (exit 2;
    it was offered as one and then ended in an internal error)."""
    code, out, err = run_cli(["semantic", "compare", str(result), str(result), "--endpoint", "n_tasks"], capsys,
                             monkeypatch)
    flat = " ".join((out + err).split())
    assert code == 2 and "'n_tasks' is not an endpoint" in flat and "ES_LOSS" in flat
    assert "n_tasks)" not in flat and "n_tasks," not in flat
