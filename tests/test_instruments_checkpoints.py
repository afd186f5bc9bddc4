"""Checkpoint ties from the loss curve, on the lv-hemingway curve's own numbers."""

from __future__ import annotations

import json
from pathlib import Path

from instruments_helpers import run_cli, spec_loss_curve, write_trainer_state

from forgegate.metrics import checkpoint_ties, read_trainer_state


def test_spec_curve_ties_850_1700_1750_and_puts_the_end_of_run_at_17_4_jitters(tmp_path: Path) -> None:
    ties = checkpoint_ties(read_trainer_state(write_trainer_state(tmp_path / "s.json", spec_loss_curve())))
    assert len(ties.points) == 54
    assert round(ties.jitter, 4) == 0.0044
    assert ties.best.step == 1750 and ties.best.eval_loss == 2.2783
    assert [r.point.step for r in ties.ties] == [850, 1700, 1750]
    end = next(r for r in ties.others if r.point.step == 2661)
    assert round(end.above_min, 4) == 0.0763
    assert end.jitters is not None and round(end.jitters, 1) == 17.4


def test_checkpoints_cli_prints_the_ties_and_writes_json(tmp_path: Path) -> None:
    path = write_trainer_state(tmp_path / "trainer_state.json", spec_loss_curve())
    result = run_cli("checkpoints", path, "--json", tmp_path / "c.json")
    assert result.returncode == 0, result.stderr
    assert "median neighbour jitter 0.0044" in result.stdout
    assert "3 inside one jitter of the minimum: 850, 1700, 1750" in result.stdout
    assert "17.4x" in result.stdout
    payload = json.loads((tmp_path / "c.json").read_text())
    assert payload["minimum"]["step"] == 1750


def test_state_without_eval_loss_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"log_history": [{"loss": 2.0, "step": 10}]}))
    result = run_cli("checkpoints", path)
    assert result.returncode == 2 and "eval_loss" in result.stderr
