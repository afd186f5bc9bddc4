"""`forgegate graduate` runs GLOSS v2's procedure in its order: the live test only after a battery PASS, the
signature check always, another live battery only when declared (issue 35, item 2). Against a fake Ollama server
(the embedded model cannot be told to fail a battery on purpose; the HTTP backend is the real one)."""

from __future__ import annotations

import json
from pathlib import Path

from backend_fake_http import Behaviour
from backend_servers import FakeOllamaServer
from instruments_helpers import run_cli

from forgegate.battery.resources import bundled_live_test_path
from forgegate.lineage import read_lineage
from forgegate.results import parse_result
from forgegate.results.graduation import GraduationResult

MODEL = "gloss:latest"


def _graduate(server: FakeOllamaServer, tmp_path: Path, *extra: str) -> tuple[int, str, str]:
    result = run_cli("graduate", "--version", "v10", "--lineage", tmp_path / "lineage.jsonl", "--backend", "ollama",
                     "--model", MODEL, "--base-url", server.url, "--store", tmp_path / "runs", "--quiet", *extra)
    return result.returncode, result.stdout, result.stderr


def test_the_live_test_is_not_run_when_the_battery_fails(tmp_path: Path) -> None:
    """'After battery PASS, run 10 live crew communication tasks': a battery FAIL asks for no live answer."""
    with FakeOllamaServer(Behaviour(default="ok")) as server:
        code, out, _ = _graduate(server, tmp_path, "--json", tmp_path / "g.json")
        bodies = [json.dumps(r.body, ensure_ascii=False) for r in server.generation_requests()]
    assert code == 1 and "live test not run" in out
    assert bodies and not any("⊹: ⊙" in b for b in bodies)  # live tasks 1-2 ("⊹: ⊙ α?") are only in the live test
    record = read_lineage(tmp_path / "lineage.jsonl").records[0][1]
    assert record.live_gate is None and not record.graduated
    assert any(r.rule == "v9 failure-mode signatures absent" for r in record.reasons)
    written = parse_result(json.loads((tmp_path / "g.json").read_text()), "g.json")
    assert isinstance(written, GraduationResult) and written.live is None  # a registered kind, read back typed
    assert written.gate.value == "FAIL" and written.battery.gate.value == "FAIL" and not written.graduated


def test_an_undeclared_live_battery_is_refused_before_anything_runs(tmp_path: Path) -> None:
    other = tmp_path / "live.jsonl"
    other.write_text(bundled_live_test_path().read_text(encoding="utf-8").replace("capital of France",
                                                                                   "capital of Spain"),
                     encoding="utf-8")
    with FakeOllamaServer(Behaviour(default="ok")) as server:
        code, _, err = _graduate(server, tmp_path, "--live-battery", other)
        asked = server.generation_requests()
    assert code == 2 and "--declare-live-battery" in err and asked == []
    assert not (tmp_path / "lineage.jsonl").exists()


def test_a_false_positive_marks_the_battery_and_eval_on_it_says_so(tmp_path: Path) -> None:
    """Invariant 6: 'If a model passes eval but fails live testing, the eval battery is broken and must be updated
    before the next forge'. The battery passes (scripted answers), the live tasks get 'ok' (FAIL): graduate records
    EVAL_FALSE_POSITIVE and marks the battery in the store; a later `forgegate eval` on the same bytes says so in
    its output and its JSON."""
    from eval_helpers import script_for

    from forgegate.battery.loader import load_battery
    from forgegate.battery.resources import bundled_battery_path

    script = script_for(load_battery(bundled_battery_path()))
    with FakeOllamaServer(Behaviour(script=script, default="ok")) as server:
        code, out, _ = _graduate(server, tmp_path)
        assert code == 1 and "EVAL_FALSE_POSITIVE" in out
        result = run_cli("eval", "--backend", "ollama", "--model", MODEL, "--base-url", server.url, "--store",
                         tmp_path / "runs", "--json", tmp_path / "e.json")
        quiet = run_cli("eval", "--backend", "ollama", "--model", MODEL, "--base-url", server.url, "--store",
                        tmp_path / "runs", "--quiet")
    data = json.loads((tmp_path / "e.json").read_text())
    assert data["gate"] == "PASS" and data["battery"]["marked_false_positive"] == ["v10"]
    assert "EVAL_FALSE_POSITIVE" in result.stdout and "must be updated before the next forge" in result.stdout
    assert "EVAL_FALSE_POSITIVE (v10)" in " ".join(quiet.stdout.split())  # --quiet's one line says so too


def test_a_replacement_battery_clears_the_mark_once_the_store_shows_it_fails_the_slipped_checkpoint(
        tmp_path: Path) -> None:
    """'Fix the eval, not the graduation criteria': v10 slips through battery A; battery B (A with LX-STOP's answers
    changed) graduates v11 only once an eval run in the store shows B FAILs v10's checkpoint (by model digest)."""
    from eval_helpers import script_for

    from forgegate.battery.loader import load_battery
    from forgegate.battery.resources import bundled_battery_path

    rows = [json.loads(line) for line in bundled_battery_path().read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row["category"] == "LX-STOP" and row["eval_type"] == "contains":
            row["expected"], row["forbid"] = ["◌"], []
    replacement = tmp_path / "battery-b.jsonl"
    replacement.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    a_script = script_for(load_battery(bundled_battery_path()))
    b_script = {**script_for(load_battery(bundled_live_test_path())), **script_for(load_battery(replacement))}
    with FakeOllamaServer(Behaviour(script=a_script, default="ok")) as v10:
        assert _graduate(v10, tmp_path)[0] == 1  # battery A PASS, live FAIL: A is marked, v10 slipped through
        with FakeOllamaServer(Behaviour(script=b_script, models={"gloss:v11": "e" * 64})) as v11:
            code, out, _ = _graduate_as(v11, tmp_path, "v11", "--battery", replacement)
            assert code == 1 and "forgegate eval --model gloss:latest --battery" in " ".join(out.split())
            caught = run_cli("eval", "--backend", "ollama", "--model", MODEL, "--base-url", v10.url, "--battery",
                             replacement, "--store", tmp_path / "runs", "--quiet")
            assert caught.returncode == 1  # B FAILs v10's checkpoint, and the store keeps the run
            code, out, _ = _graduate_as(v11, tmp_path, "v11", "--battery", replacement)
    assert code == 0 and "FAILs every checkpoint that slipped through (v10)" in " ".join(out.split())


def _graduate_as(server: FakeOllamaServer, tmp_path: Path, version: str, *extra: str | Path) -> tuple[int, str, str]:
    result = run_cli("graduate", "--version", version, "--lineage", tmp_path / "lineage.jsonl", "--backend",
                     "ollama", "--model", "gloss:v11", "--base-url", server.url, "--store", tmp_path / "runs",
                     "--quiet", *extra)
    return result.returncode, result.stdout, result.stderr
