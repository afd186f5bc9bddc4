"""Controls that run with every eval, the human-review queue, and re-scoring under the run's own gate.

The model side is Ollama's documented API served by tests/backend_servers.py (no Ollama binary
exists on these machines), answering from a script so every verdict is known in advance. The commands run
in-process (eval_helpers.run_cli_in_process): the CLI's exit codes and printed lines, one interpreter.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import read_json, script_for
from eval_helpers import run_cli_in_process as run_cli
from typer.testing import CliRunner

import forgegate.checks.loop_controls as instrument_controls
from forgegate.battery import bundled_battery_path, load_battery
from forgegate.checks.loops import LoopFinding
from forgegate.cli.main import app

BATTERY = load_battery(bundled_battery_path())
MODELS = {"gloss:v10": "e" * 64}
TINY_CONFIG = """name = "tiny"
gloss_v2 = false
category_floor = 0.5
sigma_total_min = 0.4
min_items = 3
wall_rule = true
[weights]
"LX-IDENTITY" = 0.5
"LX-SEMANTIC" = 0.5
[live]
max_loops = 0
max_wall_violations = 0
min_correct = 8
"""
TINY_ITEMS = [
    {"category": "LX-IDENTITY", "prompt": "⊙ α?", "expected": "NOUS", "max_tokens": 64, "eval_type": "contains"},
    {"category": "LX-IDENTITY", "prompt": "⊙ ι?", "expected": "AION", "max_tokens": 64, "eval_type": "contains"},
    {"id": "needs-a-human", "category": "LX-SEMANTIC", "prompt": "Translate: the forge is cold",
     "expected": [], "max_tokens": 64, "eval_type": "semantic"},
]
TINY_SCRIPT = {"⊙ α?": "α = NOUS", "⊙ ι?": "ι = AION", "Translate: the forge is cold": "frg.⊢ ❄"}


def eval_args(server: FakeOllamaServer, tmp_path: Path, *extra: str) -> list[str]:
    return ["eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url, "--quiet",
            "--store", str(tmp_path / "store"), "--json", str(tmp_path / "result.json"), *extra]


@pytest.mark.parametrize("broken", ["blind", "alarmist"])
def test_a_broken_loop_detector_makes_the_eval_invalid_with_exit_four(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str) -> None:
    found = LoopFinding(kind="RUNAWAY_LOOP", period=1, repeats=3, start=0, end=1, span="x")
    monkeypatch.setattr(instrument_controls, "detect_loop",
                        (lambda *a, **k: None) if broken == "blind" else (lambda *a, **k: found))
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), models=MODELS)) as server:
        outcome = CliRunner().invoke(app, eval_args(server, tmp_path, "--concurrency", "8"))
    result = read_json(tmp_path / "result.json")
    assert outcome.exit_code == 4, outcome.output
    assert result["gate"] == "INVALID"
    control = next(r for r in result["reasons"] if r["rule"] == "loop detector controls")
    assert control["outcome"] == "INVALID"


@pytest.fixture()
def tiny(tmp_path: Path) -> tuple[Path, Path]:
    battery = tmp_path / "tiny.jsonl"
    battery.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in TINY_ITEMS), encoding="utf-8")
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_CONFIG, encoding="utf-8")
    return battery, config


def test_a_pending_review_holds_the_gate_until_a_reviewer_decides(tmp_path: Path, tiny: tuple[Path, Path]) -> None:
    battery, config = tiny
    with FakeOllamaServer(Behaviour(script=TINY_SCRIPT, models=MODELS)) as server:
        first = run_cli(*eval_args(server, tmp_path, "--battery", str(battery), "--gate-config", str(config)))
    assert first.returncode == 3, first.stdout + first.stderr
    result = read_json(tmp_path / "result.json")
    assert result["gate"] == "INCOMPLETE"
    assert any("await human review" in r["detail"] for r in result["reasons"])
    run_id = result["run_id"]
    store = str(tmp_path / "store")

    listing = run_cli("review", run_id, "--store", store)
    assert "needs-a-human [pending]" in listing.stdout and "1 pending of 1" in listing.stdout
    refused = run_cli("review", run_id, "needs-a-human", "--pass", "--store", store)
    assert refused.returncode == 2 and "--reviewer" in refused.stderr
    first_mind = run_cli("review", run_id, "needs-a-human", "--fail", "--reviewer", "bo", "--note", "too terse",
                         "--store", store)
    assert first_mind.returncode == 0, first_mind.stderr
    decided = run_cli("review", run_id, "needs-a-human", "--pass", "--reviewer", "ana", "--note", "fine on reread",
                      "--store", store)
    assert decided.returncode == 0, decided.stderr
    assert "recorded pass by ana at " in decided.stdout and "replaces 1 earlier decision(s), kept" in decided.stdout
    shown = run_cli("review", run_id, "--store", store).stdout
    assert "needs-a-human [pass]" in shown and "0 pending of 1" in shown
    assert "decided: pass by ana at " in shown and ": fine on reread" in shown
    assert "replaced: fail by bo at " in shown and ": too terse" in shown

    rescored = run_cli("rescore", run_id, "--store", store, "--json", str(tmp_path / "after.json"))
    after = read_json(tmp_path / "after.json")
    assert rescored.returncode == 0 and after["gate"] == "PASS" and after["schema_version"] == 2
    assert after["gate_config"]["name"] == "tiny"  # the run's own gate, with no flag given
    item = next(i for i in after["items"] if i["id"] == "needs-a-human")
    review = item["review"]
    assert (review["decision"], review["reviewer"], review["note"]) == ("pass", "ana", "fine on reread")
    assert review["decided_at"].endswith("+00:00") and item["score"] == 1.0
    assert [(h["decision"], h["reviewer"], h["note"]) for h in review["history"]] == [("fail", "bo", "too terse")]


def test_rescore_under_another_gate_checks_the_battery_against_it(tmp_path: Path, tiny: tuple[Path, Path]) -> None:
    battery, config = tiny
    with FakeOllamaServer(Behaviour(script=TINY_SCRIPT, models=MODELS)) as server:
        run_cli(*eval_args(server, tmp_path, "--battery", str(battery), "--gate-config", str(config)))
    run_id = read_json(tmp_path / "result.json")["run_id"]
    gloss_v2 = Path(__file__).parents[1] / "src" / "forgegate" / "data" / "gates" / "gloss-v2.toml"
    proc = run_cli("rescore", run_id, "--store", str(tmp_path / "store"), "--gate-config", str(gloss_v2))
    assert proc.returncode == 2
    assert "LX-IDENTITY" not in proc.stderr.split("no items in")[-1] and "no items in" in proc.stderr


def compare_good_then_looping(tmp_path: Path, battery: Path, config: Path) -> subprocess.CompletedProcess[str]:
    """Two stored runs of one battery, the second looping on an item; `forgegate compare` their store files."""
    runs = []
    for n, script in enumerate([TINY_SCRIPT, {**TINY_SCRIPT, "⊙ ι?": "ι = ιιιι ιιιι ιιιι"}]):
        store = tmp_path / f"store{n}"
        with FakeOllamaServer(Behaviour(script=script, models=MODELS)) as server:
            run_cli("eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url, "--quiet",
                    "--store", str(store), "--battery", str(battery), "--gate-config", str(config))
        runs.append(str(next(store.glob("*.sqlite"))))
    return run_cli("compare", runs[0], runs[1], "--json", str(tmp_path / "d.json"))


def test_compare_takes_stored_runs_as_well_as_result_files(tmp_path: Path, tiny: tuple[Path, Path]) -> None:
    _, config = tiny
    battery = tmp_path / "ruled.jsonl"  # every item scored by a rule: nothing waits for a reviewer
    items = [dict(i, require=[["frg"]]) if i["eval_type"] == "semantic" else i for i in TINY_ITEMS]
    battery.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    proc = compare_good_then_looping(tmp_path, battery, config)
    diff = read_json(tmp_path / "d.json")
    # the new run loops on an item the old one answered: a new failure mode is a regression whatever the statistics
    assert proc.returncode == 1 and diff["gate"] == "FAIL", proc.stdout + proc.stderr
    assert "IDENTITY_LOOP" in proc.stdout


def test_a_new_failure_mode_fails_the_comparison_even_with_answers_missing(tmp_path: Path,
                                                                         tiny: tuple[Path, Path]) -> None:
    battery, config = tiny  # its semantic item awaits review in both runs: an unanswered pair
    proc = compare_good_then_looping(tmp_path, battery, config)
    diff = read_json(tmp_path / "d.json")
    assert proc.returncode == 1 and diff["gate"] == "FAIL", proc.stdout + proc.stderr
    outcomes = {r["rule"]: r["outcome"] for r in diff["reasons"]}
    assert outcomes["regression:IDENTITY_LOOP"] == "FAIL" and outcomes["errored-items"] == "INCOMPLETE"
