"""`forgegate run PLAN` with the gloss instrument: one GLOSS verdict per arm, the plan's verdict over candidates.

Each arm talks to its own fake Ollama server (Ollama's documented API) answering from a script,
so the per-arm verdicts are known in advance: one arm knows the bundled battery, the other
answers a wall it must refuse.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import script_for
from typer.testing import CliRunner

from forgegate.battery import bundled_battery_path, load_battery
from forgegate.cli.main import app
from forgegate.errors import InputError
from forgegate.plan import lock_plan

BATTERY = load_battery(bundled_battery_path())
WALL_PROMPT = next(i.prompt for i in BATTERY.items if "HUMAN-INPUT" in i.tags)
MODEL = "gloss:v10"


def plan_text(good_url: str, walls_url: str, *, walls_role: str = "candidate", seeds: str = "[0]",
              extra: str = "") -> str:
    return f'''name = "gloss-two-arms"
seeds = {seeds}

[sampling]
temperature = 0.0
max_tokens = 256

[fixture]
battery = "gloss-v2"

[[arms]]
name = "good"
backend = "ollama"
model = "{MODEL}"
base_urls = ["{good_url}"]
role = "candidate"

[[arms]]
name = "walls"
backend = "ollama"
model = "{MODEL}"
base_urls = ["{walls_url}"]
role = "{walls_role}"

[instruments.gloss]
gate_config = "gloss-v2"
''' + extra


def run_two_arms(tmp_path: Path, walls_role: str, extra: str = "",
                 cli_args: tuple[str, ...] = ()) -> tuple[int, dict[str, Any], str]:
    good = Behaviour(script=script_for(BATTERY), models={MODEL: "a" * 64})
    walls = Behaviour(script=script_for(BATTERY, {WALL_PROMPT: "Sure! Here is a lovely email for your boss."}),
                      models={MODEL: "b" * 64})
    with FakeOllamaServer(good) as s1, FakeOllamaServer(walls) as s2:
        folder = tmp_path / "plan"
        folder.mkdir()
        plan = folder / "plan.toml"
        plan.write_text(plan_text(s1.url, s2.url, walls_role=walls_role, extra=extra))
        lock_plan(plan)
        out = tmp_path / "result.json"
        result = CliRunner().invoke(app, ["run", str(plan), "--store", str(tmp_path / "runs"), "--json", str(out),
                                          "--concurrency", "8", *cli_args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, json.loads(out.read_text()), result.output


def test_each_arm_gets_its_own_gloss_verdict_and_a_failing_candidate_fails_the_plan(tmp_path: Path) -> None:
    code, result, output = run_two_arms(tmp_path, walls_role="candidate")
    arms = result["gloss"]["arms"]
    assert arms["good"]["gate"] == "PASS" and arms["good"]["sigma_total"] == pytest.approx(1.0)
    assert arms["walls"]["gate"] == "FAIL" and "WALL_COLLAPSE" in arms["walls"]["failure_modes"]
    assert arms["good"]["model_digest"] == "a" * 64 and arms["walls"]["model_digest"] == "b" * 64
    assert len(arms["good"]["items"]) == len(BATTERY.items) == len(arms["walls"]["items"])
    assert arms["good"]["battery"]["sha256"] == BATTERY.sha256
    assert result["gate"] == "FAIL" and code == 1
    assert "GLOSS per arm" in output and "GLOSS — arm walls (candidate)" in output


def test_a_control_arm_failing_gloss_is_reported_but_decides_nothing(tmp_path: Path) -> None:
    code, result, output = run_two_arms(tmp_path, walls_role="control")
    assert result["gloss"]["arms"]["walls"]["gate"] == "FAIL"
    assert result["gloss"]["gate"] == "PASS" and result["gate"] == "PASS" and code == 0
    assert result["gloss"]["arms"]["walls"]["decides"] is False and result["gloss"]["arms"]["good"]["decides"] is True
    assert "no: control" in output


def test_a_comparison_with_a_gloss_primary_is_decided_by_the_candidates_gloss_verdict(tmp_path: Path) -> None:
    comparison = '\n[[comparisons]]\ncontrol = "walls"\ncandidate = "good"\nprimary = "gloss.gate"\n'
    code, result, output = run_two_arms(tmp_path, walls_role="control", extra=comparison)
    comp = result["comparisons"][0]
    assert comp["gate"] == "PASS" and comp["primary_value"]["candidate"]["gate"] == "PASS"
    assert comp["primary_value"]["control"]["gate"] == "FAIL"
    assert result["gate"] == "PASS" and code == 0
    assert "comparisons" in output and "good vs walls: PASS" in output


def test_gloss_with_several_seeds_is_refused_before_generating(tmp_path: Path) -> None:
    folder = tmp_path / "plan"
    folder.mkdir()
    plan = folder / "plan.toml"
    plan.write_text(plan_text("http://127.0.0.1:9", "http://127.0.0.1:9", seeds="[0, 1]"))
    lock_plan(plan)
    result = CliRunner().invoke(app, ["run", str(plan), "--store", str(tmp_path / "runs")])
    err = result.exception
    assert isinstance(err, InputError) and err.field == "seeds" and err.line == 2
    assert "scores each battery item once" in str(err)
    assert not list((tmp_path / "runs").glob("*.sqlite"))


def test_run_writes_html_and_markdown_reports_carrying_the_plan_verdict(tmp_path: Path) -> None:
    html, markdown = tmp_path / "report.html", tmp_path / "summary.md"
    code, result, _ = run_two_arms(tmp_path, walls_role="candidate",
                                   cli_args=("--html", str(html), "--markdown", str(markdown)))
    assert result["gate"] == "FAIL" and code == 1
    page = html.read_text(encoding="utf-8")
    assert '<div class="verdict g-FAIL"><span class="word" id="verdict-word">FAIL</span>' in page
    assert "walls" in page
    assert "**FAIL**" in markdown.read_text(encoding="utf-8")


def test_run_quiet_turns_the_progress_bars_off_even_on_a_terminal(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import forgegate.cli.run as run_cli
    import forgegate.pipeline.plan.generate as plan_generate

    seen: list[bool] = []
    real = plan_generate.generate_plan

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs["quiet"])
        return real(*args, **kwargs)

    monkeypatch.setattr(plan_generate, "generate_plan", spy)  # the command imports it when it runs
    monkeypatch.setattr(run_cli, "quiet_default", lambda: False)  # as if stderr were a terminal
    for name, cli_args in (("loud", ()), ("quiet", ("--quiet",))):
        (tmp_path / name).mkdir()
        code, _, _ = run_two_arms(tmp_path / name, walls_role="control", cli_args=cli_args)
        assert code == 0
    assert seen == [False, True]
