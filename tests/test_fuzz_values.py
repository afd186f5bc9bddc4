"""Fuzzing the numbers users and tools hand forgegate: plan values, trainer_state entries, result and lineage
files, sheet cells. Each is read into a value in range, or refused cleanly (InputError / exit 2): never a
crash (exit 70), never a NaN that decides a verdict, never model text a spreadsheet would run."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from instruments_helpers import run_cli, spec_loss_curve, write_trainer_state
from lineage_helpers import category, passes, result

from forgegate.errors import InputError
from forgegate.jsonio import JsonProblem, parse_json_strict
from forgegate.metrics import read_trainer_state
from forgegate.plan import load_plan
from forgegate.textsafe import FORMULA_STARTS, original_cell, spreadsheet_cell
from tests.plan_helpers import PLAN, write_plan_folder

FUZZ = settings(max_examples=60, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

NUMBER_TEXT = st.one_of(
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
    st.sampled_from(["0", "-1", "1", "nan", "inf", "-inf", "1e308", "9" * 30, "2.5", "true", '"7"', "[]", "{}"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
"""TOML right-hand sides: integers of any size, floats (TOML's nan and inf included), other types."""

PLAN_FIELDS = {
    "segment_words = 100": "segment_words = {}",
    "control_seed = 7": "control_seed = {}",
    "seeds = [1, 2]": "seeds = [1, {}]",
    "band = [5, 60]": "band = [5, {}]",
    "max_margin = 0": "max_margin = {}",
    "hit_rate_margin = 0.0": "hit_rate_margin = {}",
    "temperature = 0.7": "temperature = {}",
}


@FUZZ
@given(field=st.sampled_from(sorted(PLAN_FIELDS)), value=NUMBER_TEXT)
def test_a_plan_value_is_in_range_or_refused_at_check(tmp_path_factory: pytest.TempPathFactory, field: str,
                                                     value: str) -> None:
    text = PLAN.replace(field, PLAN_FIELDS[field].format(value))
    plan = write_plan_folder(tmp_path_factory.mktemp("plan"), text)
    try:
        loaded = load_plan(plan)
    except InputError as exc:
        assert exc.line is not None or "seeds" in str(exc), str(exc)
        return
    for seed in loaded.plan.seed_list():
        assert -(2**63) <= seed < 2**63
    memorization = loaded.plan.instruments.memorization
    assert memorization is None or 0 <= memorization.control_seed < 2**63
    assert math.isfinite(loaded.plan.sampling.temperature)


@FUZZ
@given(first=st.integers(min_value=-(2**70), max_value=2**70), count=st.integers(min_value=-5, max_value=10**13))
def test_a_seed_range_is_bounded_before_it_is_listed(tmp_path_factory: pytest.TempPathFactory, first: int,
                                                     count: int) -> None:
    text = PLAN.replace("seeds = [1, 2]", f"seeds = {{ first = {first}, count = {count} }}")
    plan = write_plan_folder(tmp_path_factory.mktemp("plan"), text)
    try:
        seeds = load_plan(plan).plan.seed_list()
    except InputError:
        return
    assert 1 <= len(seeds) <= 10_000 and min(seeds) >= -(2**63) and max(seeds) < 2**63


ENTRY_VALUES = st.one_of(
    st.floats(), st.integers(min_value=-(2**70), max_value=2**70), st.booleans(), st.none(), st.text(max_size=4),
    st.lists(st.integers(), max_size=2))


@FUZZ
@given(loss=ENTRY_VALUES, step=ENTRY_VALUES, epoch=ENTRY_VALUES)
def test_a_trainer_state_entry_is_a_finite_point_or_refused(tmp_path_factory: pytest.TempPathFactory, loss: Any,
                                                            step: Any, epoch: Any) -> None:
    path = write_trainer_state(tmp_path_factory.mktemp("ts") / "trainer_state.json", spec_loss_curve())
    state = json.loads(path.read_text())
    state["log_history"].append({"eval_loss": loss, "step": step, "epoch": epoch})
    path.write_text(json.dumps(state))  # json.dumps writes NaN and Infinity as Python's reader accepts them
    try:
        points = read_trainer_state(path)
    except InputError as exc:
        assert "log_history" in str(exc)
        return
    for point in points:
        assert math.isfinite(point.eval_loss) and type(point.step) is int and point.step >= 0
        assert point.epoch is None or math.isfinite(point.epoch)


def _result_text() -> str:
    return json.dumps(result(category("LX-A", passes(8, 2)) + category("LX-B", passes(6, 4))))


NUMBER_TOKENS = st.sampled_from(["NaN", "Infinity", "-Infinity", "9" * 5000, "1e999", "-0", "true", "null",
                                 "[" * 70 + "]" * 70])


@FUZZ
@given(data=st.data())
def test_a_mangled_result_is_reported_or_refused_never_a_crash(tmp_path_factory: pytest.TempPathFactory,
                                                               data: st.DataObject) -> None:
    text = _result_text()
    numbers = [m for m in range(len(text)) if text[m].isdigit() and not text[m - 1].isalnum() and text[m - 1] != "."]
    start = data.draw(st.sampled_from(numbers))
    end = start
    while end < len(text) and (text[end].isdigit() or text[end] in ".eE-+"):
        end += 1
    mangled = text[:start] + data.draw(NUMBER_TOKENS) + text[end:]
    folder = tmp_path_factory.mktemp("res")
    path = folder / "result.json"
    path.write_text(mangled)
    outcome = run_cli("report", path, "--markdown", folder / "r.md")
    assert outcome.returncode in (0, 1, 2, 3, 4), outcome.stderr
    assert "internal error" not in outcome.stderr
    if outcome.returncode != 2:
        assert "nan" not in (folder / "r.md").read_text().lower().split("σ_total")[-1][:20]


@FUZZ
@given(text=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30))
def test_a_cell_is_never_a_formula_and_reads_back_exactly(text: str) -> None:
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerow([spreadsheet_cell(text)])
    (cell,) = next(csv.reader(io.StringIO(buffer.getvalue(), newline="")))
    assert not cell.startswith(FORMULA_STARTS)
    assert original_cell(cell) == text


@FUZZ
@given(depth=st.integers(min_value=0, max_value=200_000), digits=st.integers(min_value=1, max_value=10_000),
       constant=st.sampled_from(["NaN", "Infinity", "-Infinity", "1"]))
def test_the_strict_reader_refuses_or_reads_never_a_traceback(depth: int, digits: int, constant: str) -> None:
    text = "[" * depth + f'{{"a": {"9" * digits}, "b": {constant}}}' + "]" * depth
    try:
        value = parse_json_strict(text, finite=True)
    except (JsonProblem, json.JSONDecodeError):
        assert depth >= 64 or digits > 4300 or constant != "1"
        return
    assert depth < 65 and digits <= 4300 and constant == "1" and value is not None


def test_the_fuzzed_plan_helper_is_itself_valid(tmp_path: Path) -> None:
    load_plan(write_plan_folder(tmp_path))
