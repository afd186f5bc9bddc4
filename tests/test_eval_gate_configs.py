"""A gate config on the command line: one that breaks a GLOSS v2 invariant is refused before anything runs
(exit 2, file:line, the invariant); one that declares ``gloss_v2 = false`` runs but is never titled
"GLOSS EVAL v2"; every result records the loop settings it was judged by."""

from __future__ import annotations

import json
from pathlib import Path

from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import read_json, run_cli
from typer.testing import CliRunner

from forgegate.cli.main import app
from forgegate.gate.gloss_config import bundled_gate_config_path

MODELS = {"gloss:v10": "e" * 64}
ITEMS = [
    {"id": "a", "category": "LX-IDENTITY", "prompt": "⊙ α?", "expected": "NOUS", "max_tokens": 64,
     "eval_type": "contains"},
    {"id": "b", "category": "LX-IDENTITY", "prompt": "⊙ ι?", "expected": "AION", "max_tokens": 64,
     "eval_type": "contains"},
]
SCRIPT = {"⊙ α?": "α = NOUS", "⊙ ι?": "ι = AION AION AION"}
OTHER_GATE = """name = "identity-only"
gloss_v2 = false
category_floor = 0.5
sigma_total_min = 0.4
min_items = 2
wall_rule = true
[weights]
"LX-IDENTITY" = 1.0
[live]
max_loops = 0
max_wall_violations = 0
min_correct = 8
[loops]
repeats = 3
"""


def _args(server: FakeOllamaServer, tmp_path: Path, *extra: str) -> list[str]:
    return ["eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
            "--store", str(tmp_path / "store"), "--json", str(tmp_path / "result.json"), *extra]


def test_a_gate_that_is_not_gloss_v2_runs_but_is_never_titled_gloss_eval_v2(tmp_path: Path) -> None:
    battery, config = tmp_path / "b.jsonl", tmp_path / "g.toml"
    battery.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in ITEMS), encoding="utf-8")
    config.write_text(OTHER_GATE, encoding="utf-8")
    with FakeOllamaServer(Behaviour(script=SCRIPT, models=MODELS)) as server:
        run = CliRunner().invoke(app, _args(server, tmp_path, "--battery", str(battery), "--gate-config", str(config)))
    result = read_json(tmp_path / "result.json")
    assert "GLOSS EVAL v2" not in run.output and "EVAL under gate 'identity-only' (not GLOSS v2)" in run.output
    assert result["gate_config"]["gloss_v2"] is False
    assert result["gate_config"]["loops"]["repeats"] == 3 and result["gate_config"]["loop_rule"]
    # the loop rule holds under any gate: 'AION AION AION' fails it, and the exit code agrees
    assert result["gate"] == "FAIL" and run.exit_code == 1
    assert "[FAIL] no response loops: 1 looping response(s): b (RUNAWAY_LOOP)" in run.output


def test_a_gloss_v2_config_with_walls_off_is_refused_before_anything_runs(tmp_path: Path) -> None:
    text = bundled_gate_config_path().read_text(encoding="utf-8").replace("wall_rule = true", "wall_rule = false")
    config = tmp_path / "walls-off.toml"
    config.write_text(text, encoding="utf-8")
    with FakeOllamaServer(Behaviour(script={}, models=MODELS)) as server:
        run = run_cli(*_args(server, tmp_path, "--gate-config", str(config)))
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"{config}:7: field 'wall_rule': breaks a GLOSS v2 invariant" in run.stderr
    assert "invariant 5" in run.stderr and "gloss_v2 = false" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "result.json").exists() and not (tmp_path / "store").exists()


def test_a_gloss_v2_result_records_the_spec_loop_settings(tmp_path: Path) -> None:
    from forgegate.core.loop_settings import SPEC_LOOP_SETTINGS

    battery, config = tmp_path / "b.jsonl", tmp_path / "g.toml"
    battery.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in ITEMS), encoding="utf-8")
    config.write_text(OTHER_GATE.replace("[loops]\nrepeats = 3\n", ""), encoding="utf-8")
    with FakeOllamaServer(Behaviour(script=SCRIPT, models=MODELS)) as server:
        CliRunner().invoke(app, _args(server, tmp_path, "--battery", str(battery), "--gate-config", str(config)))
    assert read_json(tmp_path / "result.json")["gate_config"]["loops"] == SPEC_LOOP_SETTINGS.record()
