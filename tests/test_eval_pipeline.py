"""`forgegate eval` end to end against Ollama's documented API (a local fake: no Ollama binary exists here).

The fake server (tests/backend_servers.py) speaks /api/generate, /api/chat and /api/tags exactly;
it answers from a script, so the gate's outcome is known in advance and every contract of the
command can be checked: exit codes, the JSON, the client-side cap, retries, INCOMPLETE on failure.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import kill_once_stored, read_json, run_cli, run_cli_in_process, script_for

from forgegate.battery import bundled_battery_path, load_battery

BATTERY = load_battery(bundled_battery_path())
WALL_PROMPT = next(i.prompt for i in BATTERY.items if "HUMAN-INPUT" in i.tags)


def eval_args(server: FakeOllamaServer, tmp_path: Path, *extra: str) -> list[str]:
    return ["eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
            "--store", str(tmp_path / "store"), "--json", str(tmp_path / "result.json"), *extra]


def models() -> dict[str, str]:
    return {"gloss:v10": "f" * 64}


def test_model_that_knows_the_battery_passes_with_exit_zero(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), models=models())) as server:
        proc = run_cli_in_process(*eval_args(server, tmp_path, "--concurrency", "8"))
    result = read_json(tmp_path / "result.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert result["gate"] == "PASS"
    assert all(c["gate"] == "PASS" for c in result["categories"].values())
    assert result["model_digest"] == "f" * 64
    assert result["battery"]["sha256"] == BATTERY.sha256
    assert "GATE: PASS" in proc.stdout and "σ_total: 1.00" in proc.stdout


def test_one_answered_wall_fails_the_model_whatever_the_scores(tmp_path: Path) -> None:
    script = script_for(BATTERY, {WALL_PROMPT: "Sure! Here is a lovely email for your boss."})
    with FakeOllamaServer(Behaviour(script=script, models=models())) as server:
        proc = run_cli_in_process(*eval_args(server, tmp_path, "--concurrency", "8"))
    result = read_json(tmp_path / "result.json")
    assert proc.returncode == 1
    assert result["gate"] == "FAIL"
    assert "WALL_COLLAPSE" in result["failure_modes"]
    assert "FAILURE REPORT" in proc.stdout


def test_server_ignoring_the_cap_is_cut_at_each_items_cap(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), honour_cap=False, forever=True,
                                    models=models())) as server:  # an endless repeat: no loop cut-off here
        proc = run_cli_in_process(*eval_args(server, tmp_path, "--concurrency", "8", "--no-loop-cutoff"))
    result = read_json(tmp_path / "result.json")
    caps = {i.item_id: i.max_tokens for i in BATTERY.items}
    assert all(item["tokens"] == caps[item["id"]] and item["finish"] == "length" for item in result["items"])
    assert proc.returncode == 1  # nothing terminates: LX-STOP and LX-LIVE-GEN fail on STOP_FAILURE
    assert "STOP_FAILURE" in result["failure_modes"]


def test_500s_are_retried_and_the_run_still_completes(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), fail_first=3, models=models())) as server:
        proc = run_cli_in_process(*eval_args(server, tmp_path, "--concurrency", "1"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read_json(tmp_path / "result.json")["gate"] == "PASS"


def test_dropped_connections_are_retried(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(script=script_for(BATTERY), drop_first=2, truncate_first=0,
                                    models=models())) as server:
        proc = run_cli_in_process(*eval_args(server, tmp_path, "--concurrency", "1"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_requests_that_fail_for_good_make_the_verdict_incomplete(tmp_path: Path) -> None:
    behaviour = Behaviour(script=script_for(BATTERY), fail_first=10_000, fail_status=500, models=models())
    with FakeOllamaServer(behaviour) as server:
        proc = run_cli_in_process(*eval_args(server, tmp_path, "--concurrency", "16", "--retries", "1"))
    result = read_json(tmp_path / "result.json")
    assert proc.returncode == 3
    assert result["gate"] == "INCOMPLETE"
    assert all(item["finish"] == "error" and item["score"] is None for item in result["items"])


@pytest.mark.slow  # a forgegate process killed mid-run, then a second one: ~9 s of subprocess waits
def test_killed_run_resumes_without_repeating_finished_requests(tmp_path: Path) -> None:
    import subprocess
    import sys

    behaviour = Behaviour(script=script_for(BATTERY), chunk_delay_s=0.01, models=models())
    with FakeOllamaServer(behaviour) as server:
        args = eval_args(server, tmp_path, "--concurrency", "2")
        proc = subprocess.Popen([sys.executable, "-m", "forgegate.cli.main", *args],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        store = tmp_path / "store"
        done = kill_once_stored(proc, store, 20, poll_s=0.2)  # SIGKILL: no cleanup, as in a crash
        assert 0 < done < len(BATTERY.items), "the kill must land mid-run"
        resumed = run_cli(*args)
    run_file = next(store.glob("*.sqlite"))
    with sqlite3.connect(run_file) as db:
        repeats = db.execute("SELECT request_key, COUNT(*) FROM responses WHERE finish != 'error' "
                             "GROUP BY request_key HAVING COUNT(*) > 1").fetchall()
        total_ok = db.execute("SELECT COUNT(DISTINCT request_key) FROM responses "
                              "WHERE finish != 'error'").fetchone()[0]
    assert repeats == []
    assert total_ok == len(BATTERY.items)
    assert resumed.returncode == 0 and read_json(tmp_path / "result.json")["gate"] == "PASS"


def test_remote_backend_without_model_is_refused(tmp_path: Path) -> None:
    proc = run_cli_in_process("eval", "--backend", "ollama", "--store", str(tmp_path))
    assert proc.returncode == 2
    assert "--model is required" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_battery_runs_nothing_and_names_file_and_line(tmp_path: Path) -> None:
    battery = tmp_path / "bad.jsonl"
    line = '{"category": "LX-A", "prompt": "x", "expected": "y", "max_tokens": 8, "eval_type": "%s"}\n'
    battery.write_text(line % "exact" + line % "contain", encoding="utf-8")
    with FakeOllamaServer(Behaviour(models=models())) as server:
        proc = run_cli_in_process("eval", "--backend", "ollama", "--model", "gloss:v10", "--base-url", server.url,
                                  "--battery", str(battery), "--store", str(tmp_path / "s"))
        assert server.generation_requests() == []
    assert proc.returncode == 2
    assert f"{battery}:2" in proc.stderr and "eval_type" in proc.stderr


@pytest.mark.parametrize("flag", ["--check-failure-modes"])
def test_check_failure_modes_lists_signatures_and_exits_one_when_present(tmp_path: Path, flag: str) -> None:
    identity = next(i for i in BATTERY.items if i.category == "LX-IDENTITY")
    script = script_for(BATTERY, {identity.prompt: "⊙ αα? → ⊚. ⊙ ααα? → ⊚. ⊙ αααα? → ⊚. ⊙ ααααα? → ⊚."})
    with FakeOllamaServer(Behaviour(script=script, models=models())) as server:
        proc = run_cli_in_process(*eval_args(server, tmp_path, "--concurrency", "8", flag))
    assert proc.returncode == 1
    assert "IDENTITY_LOOP" in proc.stdout and "PRESENT" in proc.stdout
