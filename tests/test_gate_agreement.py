"""The gate decides once: for every gating command the JSON's ``gate``, the reports and the exit code carry one word.

``--check-failure-modes`` is a rule of the gate: a signature present makes the JSON, the HTML, the Markdown
and the exit code say FAIL together (it once wrote ``"gate": "PASS"`` and then exited 1). The model side is
Ollama's documented API served by tests/backend_servers.py (no Ollama binary exists on these machines).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import read_json, script_for
from typer.testing import CliRunner

from forgegate.battery import bundled_battery_path, bundled_live_test_path, load_battery
from forgegate.cli.main import app
from forgegate.core.verdict import Gate

BATTERY = load_battery(bundled_battery_path())
LIVE = load_battery(bundled_live_test_path())
MODELS = {"gloss:v10": "e" * 64}
LOOP = "Here is the list: la Femme, la Femme, la Femme, la Femme, la Femme, la Femme, la Femme, la Femme"
EXIT = {g.value: g.exit_code for g in Gate}


def _one_loop_script() -> dict[str, str]:
    """Every answer right except one open-generation item that loops: its category still passes."""
    looping = next(i for i in BATTERY.items if i.category == "LX-LIVE-GEN")
    return script_for(BATTERY, {looping.prompt: LOOP})


@pytest.fixture(scope="module")
def server() -> object:
    with FakeOllamaServer(Behaviour(script=_one_loop_script(), models=MODELS)) as fake:
        yield fake


def _invoke(args: list[str]) -> int:
    return CliRunner().invoke(app, args).exit_code


def _eval(server: FakeOllamaServer, tmp: Path, *extra: str) -> tuple[int, dict[str, object], Path]:
    out = tmp / "result.json"
    code = _invoke(["eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url, "--quiet",
                    "--concurrency", "8", "--store", str(tmp / "store"), "--json", str(out),
                    "--html", str(tmp / "r.html"), "--markdown", str(tmp / "r.md"), *extra])
    return code, read_json(out), out


def test_one_loop_in_a_passing_category_fails_the_json_the_reports_the_terminal_and_the_exit_code(
        server: FakeOllamaServer, tmp_path: Path) -> None:
    """GLOSS v2, invariant 3: a loop means "do NOT graduate": the gate's own rule fails it, without
    --check-failure-modes (before, this run said PASS with RUNAWAY_LOOP among its failure modes)."""
    out = tmp_path / "result.json"
    run = CliRunner().invoke(app, ["eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
                                   "--concurrency", "8", "--store", str(tmp_path / "store"), "--json",
                                   str(out), "--html", str(tmp_path / "r.html"), "--markdown", str(tmp_path / "r.md")])
    result = read_json(out)
    looping = next(i for i in BATTERY.items if i.category == "LX-LIVE-GEN").item_id
    assert "RUNAWAY_LOOP" in result["failure_modes"] and result["failure_mode_signatures"] is None
    assert result["categories"]["LX-LIVE-GEN"]["gate"] == "PASS" and result["failed_categories"] == []
    assert result["gate"] == "FAIL" and run.exit_code == EXIT["FAIL"]
    rule = next(r for r in result["reasons"] if r["rule"] == "no response loops")
    assert rule["outcome"] == "FAIL" and f"{looping} (RUNAWAY_LOOP)" in rule["detail"]
    shown = " ".join(run.output.split())  # not a terminal: the rule's reason is wrapped whole over lines (issue 45)
    assert f"[FAIL] no response loops: 1 looping response(s): {looping} (RUNAWAY_LOOP)" in shown
    assert "GATE: FAIL" in run.output and "GLOSS EVAL v2" in run.output
    assert (tmp_path / "r.md").read_text(encoding="utf-8").startswith("### ❌ GLOSS eval: **FAIL**")
    assert "no response loops" in (tmp_path / "r.md").read_text(encoding="utf-8")
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<title>FAIL — gloss:v10" in html and "no response loops" in html


def test_check_failure_modes_fails_the_json_the_reports_and_the_exit_code_together(server: FakeOllamaServer,
                                                                                   tmp_path: Path) -> None:
    code, result, _ = _eval(server, tmp_path, "--check-failure-modes")
    assert result["gate"] == "FAIL" and code == EXIT["FAIL"]
    rule = next(r for r in result["reasons"] if r["rule"] == "v9 failure-mode signatures absent")
    assert rule["outcome"] == "FAIL" and rule["numbers"]["RUNAWAY_LOOP"] is True
    assert result["failure_mode_signatures"]["RUNAWAY_LOOP"] is True
    assert (tmp_path / "r.md").read_text(encoding="utf-8").startswith("### ❌ GLOSS eval: **FAIL**")
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<title>FAIL — gloss:v10" in html and "v9 failure-mode signatures absent" in html


def test_rescore_gates_with_the_signature_rule_the_same_way(server: FakeOllamaServer, tmp_path: Path) -> None:
    _eval(server, tmp_path)
    run_id = str(read_json(tmp_path / "result.json")["run_id"])
    out = tmp_path / "again.json"
    code = _invoke(["rescore", run_id, "--store", str(tmp_path / "store"), "--json", str(out),
                    "--check-failure-modes"])
    again = read_json(out)
    assert (again["gate"], code) == ("FAIL", 1)


def test_live_and_compare_exit_with_the_word_their_json_carries(server: FakeOllamaServer, tmp_path: Path) -> None:
    out = tmp_path / "live.json"
    code = _invoke(["live", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url, "--quiet",
                    "--store", str(tmp_path / "store"), "--json", str(out)])
    assert code == EXIT[str(read_json(out)["gate"])]
    _, _, first = _eval(server, tmp_path / "a")
    _, _, second = _eval(server, tmp_path / "b")
    compared = tmp_path / "compare.json"
    code = _invoke(["compare", str(first), str(second), "--json", str(compared), "--resamples", "200"])
    assert code == EXIT[str(read_json(compared)["gate"])]
