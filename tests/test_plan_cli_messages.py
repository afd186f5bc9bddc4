"""The CLI's error lines, as a user sees them in a subprocess: bracketed text survives, --adapter is refused."""

from __future__ import annotations

from pathlib import Path

from eval_helpers import run_cli

from tests.plan_helpers import PLAN, line_of, write_plan_folder


def test_bracketed_text_in_an_error_message_is_printed_not_eaten_as_markup(tmp_path: Path) -> None:
    text = PLAN.replace("band = [5, 60]", "band = [60, 5]")
    plan = write_plan_folder(tmp_path, text)
    proc = run_cli("plan", "check", str(plan), env={"COLUMNS": "300"})
    assert proc.returncode == 2
    assert "band must be [low, high] with 0 < low <= high, got [60, 5]" in proc.stderr
    assert f"plan.toml:{line_of(text, '[instruments.damage]')}" in proc.stderr


def test_eval_refuses_an_adapter_on_a_backend_that_cannot_load_one() -> None:
    proc = run_cli("eval", "--backend", "embedded", "--adapter", "/nowhere/checkpoint-1750", env={"COLUMNS": "300"})
    assert proc.returncode == 2
    assert "--adapter: the embedded backend cannot load an adapter" in proc.stderr
