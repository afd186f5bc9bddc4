"""Every JSON forgegate reads goes through its one strict reader: deep nesting, 5,000-digit numbers and (in
result, lineage and probe files) NaN or Infinity are a refusal naming the file (exit 2), never exit 70; a
trainer_state.json whose eval_loss or step is not a finite number is refused, never a wrong checkpoint."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from instruments_helpers import run_cli, spec_loss_curve, write_trainer_state
from lineage_helpers import category, live, passes, result

from forgegate.errors import InputError
from forgegate.lineage import decide_graduation, lineage_table, read_lineage
from forgegate.metrics import read_trainer_state
from forgegate.training.checkpoint_files import MAX_SAFETENSORS_HEADER, weight_file_problem
from forgegate.training.records import PROBES_FILE, read_probes

DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = "9" * 5000


def _state(tmp_path: Path, entry: str) -> Path:
    """A trainer state with the spec curve, its step-50 eval entry's JSON text replaced by ``entry``."""
    path = write_trainer_state(tmp_path / "trainer_state.json", spec_loss_curve())
    state = json.loads(path.read_text())
    index = next(i for i, e in enumerate(state["log_history"]) if "eval_loss" in e and e["step"] == 50)
    state["log_history"][index] = "@ENTRY@"
    path.write_text(json.dumps(state).replace('"@ENTRY@"', entry), encoding="utf-8")
    return path


@pytest.mark.parametrize(("entry", "words"), [
    ('{"eval_loss": -Infinity, "step": 50}', "not a finite loss"),
    ('{"eval_loss": Infinity, "step": 50}', "not a finite loss"),
    ('{"eval_loss": NaN, "step": 50}', "not a finite loss"),
    ('{"eval_loss": 1e308, "step": 50}', "not a finite loss"),
    ('{"eval_loss": -1e308, "step": 50}', "not a finite loss"),
    ('{"eval_loss": 2.5, "step": true}', "'step' must be a whole number, not true"),
    ('{"eval_loss": 2.5, "step": 2.5}', "'step' must be a whole number"),
    ('{"eval_loss": 2.5, "step": -4}', "out of range"),
    ('{"eval_loss": true, "step": 50}', "'eval_loss' must be a number, not true"),
    ('{"eval_loss": "2.5", "step": 50}', "'eval_loss' must be a number"),
    ('{"eval_loss": 2.5, "step": 50, "epoch": NaN}', "'epoch' must be a finite number"),
    (f'{{"eval_loss": 2.5, "step": {LONG_INT}}}', "number too long"),
    (DEEP, "nested"),
])
def test_checkpoints_refuses_a_bad_eval_entry_naming_it(tmp_path: Path, entry: str, words: str) -> None:
    path = _state(tmp_path, entry)
    with pytest.raises(InputError) as refused:
        read_trainer_state(path)
    assert words in str(refused.value)
    outcome = run_cli("checkpoints", path, "--json", tmp_path / "c.json")
    assert outcome.returncode == 2, outcome.stderr
    assert str(path) in outcome.stderr and "internal error" not in outcome.stderr
    assert not (tmp_path / "c.json").exists()


def test_plan_from_training_refuses_a_nan_minimum(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    _state(run, '{"eval_loss": NaN, "step": 50}')
    outcome = run_cli("plan", "from-training", run, "--base", tmp_path / "base.gguf", "--preset", "hemingway",
                      "--out", tmp_path / "plan.toml")
    assert outcome.returncode == 2, outcome.stdout + outcome.stderr
    assert "log_history" in outcome.stderr and "not a finite loss" in " ".join(outcome.stderr.split())
    assert not (tmp_path / "plan.toml").exists()


def _battery(lx_a: int) -> dict[str, Any]:
    return result(category("LX-A", passes(lx_a, 10 - lx_a)))


@pytest.mark.parametrize("bad", [DEEP, f'{{"x": {LONG_INT}}}', '{"sigma_total": NaN}', '{"x": -Infinity}'])
def test_report_and_compare_refuse_a_hostile_result_file(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "result.json"
    path.write_text(bad, encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_battery(8)), encoding="utf-8")
    for args in (("report", path, "--markdown", tmp_path / "r.md"), ("compare", good, path),
                 ("compare", path, good)):
        outcome = run_cli(*args)
        assert outcome.returncode == 2, (args, outcome.stderr)
        assert str(path) in outcome.stderr and "internal error" not in outcome.stderr


def test_a_result_with_nan_is_refused_even_where_the_schema_allows_a_float(tmp_path: Path) -> None:
    payload = json.dumps(_battery(8)).replace('"sigma_total": 0.8', '"sigma_total": NaN')
    assert "NaN" in payload
    path = tmp_path / "result.json"
    path.write_text(payload, encoding="utf-8")
    outcome = run_cli("report", path, "--markdown", tmp_path / "r.md")
    assert outcome.returncode == 2 and "NaN is not a number" in outcome.stderr


@pytest.mark.parametrize("bad", [DEEP, f'{{"lineage_format": 1, "x": {LONG_INT}}}', '{"sigma_total": NaN}'])
def test_lineage_show_and_graduate_refuse_a_hostile_line(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "lineage.jsonl"
    decide_graduation("v1", _battery(8), live("PASS"), path, [], None, n_resamples=200)
    path.write_text(path.read_text() + bad + "\n", encoding="utf-8")
    outcome = run_cli("lineage", "show", path)
    assert outcome.returncode == 2, outcome.stderr
    assert f"{path}:2" in outcome.stderr.replace("\n", "") and "internal error" not in outcome.stderr


@pytest.mark.parametrize("bad", [DEEP, f'{{"step": {LONG_INT}}}', '{"step": 1, "eval_loss": NaN}'])
def test_a_hostile_probe_file_line_is_refused_at_its_line(tmp_path: Path, bad: str) -> None:
    (tmp_path / PROBES_FILE).write_text(bad + "\n", encoding="utf-8")
    with pytest.raises(InputError) as refused:
        read_probes(tmp_path)
    assert refused.value.line == 1


def test_lineage_show_is_linear_in_the_note(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    path = tmp_path / "lineage.jsonl"
    decide_graduation("v1", _battery(8), live("PASS"), path, [], "n" * 5_000_000, n_resamples=200)
    started = time.perf_counter()
    console = Console(file=io.StringIO(), width=100)
    console.print(lineage_table(read_lineage(path), console))
    assert time.perf_counter() - started < 5  # was 13.6 s
    assert "more characters, line 1 of the lineage file" in console.file.getvalue()  # type: ignore[attr-defined]


def test_a_safetensors_header_past_the_format_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "adapter_model.safetensors"
    with path.open("wb") as handle:
        handle.write((MAX_SAFETENSORS_HEADER + 1).to_bytes(8, "little"))
        handle.truncate(2_500_000_000)  # sparse: costs no disk
    problem = weight_file_problem(path)
    assert problem is not None and "more than safetensors allows" in problem
