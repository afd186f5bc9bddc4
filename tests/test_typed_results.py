"""One typed result from pipeline to screen (issue 21): renderers read the model, instruments write it once,
and scoring a stored run writes nothing back into it."""

from __future__ import annotations

import ast
import io
from pathlib import Path

from report_helpers import GOOD, stored_run
from rich.console import Console

from forgegate.battery import load_battery
from forgegate.gate.gloss_config import load_gate_config
from forgegate.pipeline.gloss_scoring import eval_result, record_last_gate, score_store
from forgegate.report import render_markdown
from forgegate.report.eval_terminal import print_eval
from forgegate.results import EvalResult
from forgegate.store import RunStore

SRC = Path(__file__).resolve().parents[1] / "src" / "forgegate"


def _calls(path: Path, name: str) -> list[int]:
    """Lines of ``path`` that call a method or function named ``name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and (getattr(node.func, "attr", None) == name or getattr(node.func, "id", None) == name)]


def test_report_renderers_never_turn_the_model_back_into_a_dict() -> None:
    """A renderer reads attributes of the results model; a dump inside report/ would be the old shape change."""
    dumped = {f"{p.name}:{line}" for p in (SRC / "report").glob("*.py") for line in _calls(p, "model_dump")}
    assert dumped == set()


LEFT_TO_DO: set[str] = set()
"""Modules whose hand-written ``to_json`` is still to become a results model (issue 34, item 3): none."""
GENERIC = "results/base.py"
"""``Strict.to_json``: every results model's one dump, not a mirror."""


def test_no_hand_written_json_mirror_outside_the_results_models() -> None:
    """A JSON is a results model's dump, built from the measurement in one place (``from_report`` / ``of``): no
    hand-written ``to_json`` mirror is left to drift from it. The scan covers all of ``src/``; what is left is
    named above."""
    mirrors = {str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
               for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
               if isinstance(node, ast.FunctionDef) and node.name == "to_json"}
    assert mirrors - {GENERIC} == LEFT_TO_DO
    assert {"metrics/checkpoints.py", "fixture/builder.py", "battery/loader.py", "plan/lock.py", "view/runs.py",
            "core/verdict.py", "lineage/compare.py", "lineage/graduation.py",
            "semantic/bootstrap.py"}.isdisjoint(mirrors)


def test_scoring_reads_the_store_and_only_the_owning_command_notes_the_verdict(tmp_path: Path) -> None:
    store_path, battery_path, gate_path = stored_run(tmp_path, GOOD)
    config, sha = load_gate_config(gate_path)
    scored = score_store(store_path, load_battery(battery_path, categories=config.categories), config, sha)
    with RunStore.open(store_path, readonly=True) as store:
        assert store.meta().last_gate is None  # scoring wrote nothing back
    record_last_gate(store_path, scored.gloss.verdict.gate)
    with RunStore.open(store_path, readonly=True) as store:
        assert store.meta().last_gate == scored.gloss.verdict.gate.value


def test_the_model_the_pipeline_returns_renders_as_its_json_does(tmp_path: Path) -> None:
    """The typed result and its JSON file render the same: the file is the model's dump, nothing reshaped."""
    store_path, battery_path, gate_path = stored_run(tmp_path, GOOD)
    config, sha = load_gate_config(gate_path)
    result = eval_result(score_store(store_path, load_battery(battery_path, categories=config.categories), config,
                                     sha))
    payload = result.to_json()
    assert EvalResult.model_validate(payload) == result
    assert render_markdown(result) == render_markdown(payload)
    out = io.StringIO()
    print_eval(result, Console(file=out, width=200, color_system=None))
    assert f"GATE: {result.gate.value}" in out.getvalue()
