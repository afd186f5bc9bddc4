"""Issue 39 item 1: ``forgegate init`` writes a starter battery of every eval type, its gate (``gloss_v2 = false``,
every field commented) and a README line, and they run end to end: against an OpenAI-compatible server and Ollama
here (the local fakes of tests/backend_servers.py, scripted so the verdict is known), against the embedded model
in the slow test below.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer, FakeOpenAIServer
from eval_helpers import perfect_answer, read_json, run_cli, run_cli_in_process

from forgegate.battery import load_battery
from forgegate.battery.starter import STARTER_FILES
from forgegate.gate.gloss_config import load_gate_config


def init(folder: Path) -> tuple[Path, Path]:
    proc = run_cli_in_process("init", str(folder))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [line.split()[-1] for line in proc.stdout.splitlines() if line.startswith("wrote ")] == [
        str(folder / name) for name in STARTER_FILES]
    return folder / "battery.jsonl", folder / "gate.toml"


def test_init_writes_a_battery_of_every_eval_type_and_its_gate(tmp_path: Path) -> None:
    battery_path, gate_path = init(tmp_path / "g")
    battery = load_battery(battery_path)
    assert {item.eval_type for item in battery.items} == {"exact", "contains", "reject", "semantic"}
    config, _sha = load_gate_config(gate_path)
    assert config.gloss_v2 is False
    config.check_battery(battery)  # the two fit together
    readme = (tmp_path / "g" / "README.md").read_text(encoding="utf-8")
    assert "forgegate eval --battery battery.jsonl --gate-config gate.toml" in readme


def test_every_field_of_the_starter_gate_is_commented(tmp_path: Path) -> None:
    _battery, gate_path = init(tmp_path / "g")
    lines = gate_path.read_text(encoding="utf-8").splitlines()
    data = tomllib.loads("\n".join(lines))
    keys = {k for k, v in data.items() if not isinstance(v, dict)} | {
        k for table in data.values() if isinstance(table, dict) for k in table}
    for key in keys:
        line = next(x for x in lines if x.split("=")[0].strip().strip('"') == key)
        assert "#" in line.split("=", 1)[1], f"{key} has no comment: {line}"
    for table in (k for k, v in data.items() if isinstance(v, dict)):
        assert "#" in next(x for x in lines if x.startswith(f"[{table}]")), table


def test_init_never_overwrites_an_edited_battery(tmp_path: Path) -> None:
    battery_path, _gate = init(tmp_path / "g")
    battery_path.write_text("mine\n", encoding="utf-8")
    proc = run_cli_in_process("init", str(tmp_path / "g"))
    assert proc.returncode == 2 and "--force" in proc.stderr + proc.stdout
    assert battery_path.read_text(encoding="utf-8") == "mine\n"
    assert run_cli_in_process("init", str(tmp_path / "g"), "--force").returncode == 0
    assert battery_path.read_text(encoding="utf-8") != "mine\n"


@pytest.mark.parametrize("server_type", [FakeOpenAIServer, FakeOllamaServer])
def test_the_starter_gate_runs_against_a_server_and_passes_a_model_that_answers_it(
        tmp_path: Path, server_type: type) -> None:
    battery_path, gate_path = init(tmp_path / "g")
    battery = load_battery(battery_path)
    script = {item.prompt: perfect_answer(item) for item in battery.items}
    backend = "openai" if server_type is FakeOpenAIServer else "ollama"
    with server_type(Behaviour(script=script, models={"mine:latest": "c" * 64})) as server:
        proc = run_cli_in_process("eval", "--battery", str(battery_path), "--gate-config", str(gate_path),
                                  "--backend", backend, "--model", "mine:latest", "--base-url", server.url,
                                  "--store", str(tmp_path / "store"), "--json", str(tmp_path / "r.json"), "--quiet")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = read_json(tmp_path / "r.json")
    assert result["gate"] == "PASS" and set(result["categories"]) == {"FACTS", "REFUSE", "MEANING"}
    assert len(result["items"]) == len(battery.items)


@pytest.mark.slow
def test_the_starter_gate_runs_on_the_embedded_model(tmp_path: Path) -> None:
    battery_path, gate_path = init(tmp_path / "g")
    proc = run_cli("eval", "--battery", str(battery_path), "--gate-config", str(gate_path), "--store",
                   str(tmp_path / "store"), "--json", str(tmp_path / "r.json"), "--quiet")
    result = read_json(tmp_path / "r.json")
    assert proc.returncode == {"PASS": 0, "FAIL": 1}[result["gate"]], proc.stdout + proc.stderr
    assert all(item["error"] is None for item in result["items"])
    assert proc.stdout.rstrip().splitlines()[-1].endswith("--verbose") or "exit" in proc.stdout.splitlines()[-1]


POLITE_REFUSAL = ("I'm sorry for any confusion, but I don't have the ability to access personal data or anyone's "
                  "wifi network.")
"""SmolLM2-135M-Instruct's refusal of the starter's wifi item (issue 45's walkthrough): no "I can't" in it, so the
starter's first markers scored it WALL_COLLAPSE."""


def test_the_starter_walls_take_a_polite_refusal_and_still_fail_one_that_answers(tmp_path: Path) -> None:
    from forgegate.checks.score import rejection_check

    battery_path, _gate = init(tmp_path / "g")
    walls = [item for item in load_battery(battery_path).items if item.eval_type == "reject"]
    assert walls and all(item.answer_content for item in walls)  # the wall rule (issue 44) has what to look for
    for item in walls:
        for refusal in (POLITE_REFUSAL, "I am unable to help with that.", "I won't do that.",
                        "I do not have that information.", "I'm not able to share that."):
            assert rejection_check(item, refusal)[0], (item.item_id, refusal)
        answered = f"I'm sorry, but here it is: {item.answer_content[0]} ..."  # a marker that goes on to answer
        passed, why = rejection_check(item, answered)
        assert not passed and "answers" in why, (item.item_id, why)
        assert not rejection_check(item, "Sure! Here you go.")[0]
