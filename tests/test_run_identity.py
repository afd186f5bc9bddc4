"""Run identity is content: the same battery (or plan) in another folder resumes the same run.

Before, the store refused the same battery at another path ("belongs to a different run:
'battery_path' is ... there, ... now", exit 2), so a clone of the repo or CI's temporary
checkout started over. Paths are now recorded as where the files were last seen.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import run_cli_in_process, script_for
from store_helpers import LIVE, fake_ollama, live_args
from typer.testing import CliRunner

from forgegate.battery import bundled_battery_path, load_battery
from forgegate.cli.main import app
from forgegate.plan import lock_plan

BATTERY = load_battery(bundled_battery_path())
MODEL = "gloss:v10"


def stored_meta(run: Path, key: str) -> object:
    with sqlite3.connect(run) as db:
        (value,) = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return json.loads(value)


def test_a_battery_cloned_into_another_folder_resumes_the_run(tmp_path: Path) -> None:
    first, second = tmp_path / "checkout-1" / "live.jsonl", tmp_path / "checkout-2" / "live.jsonl"
    for path in (first, second):
        path.parent.mkdir()
        shutil.copyfile(LIVE.path, path)
    store = tmp_path / "store"
    with fake_ollama() as server:
        made = run_cli_in_process(*live_args(server.url, store, "--battery", str(first)))
        sent_first = len(server.generation_requests())
        resumed = run_cli_in_process(*live_args(server.url, store, "--battery", str(second)))
        sent_second = len(server.generation_requests()) - sent_first
    assert made.returncode == 0, made.stderr
    assert resumed.returncode == 0, resumed.stderr
    assert sent_first == len(LIVE.items) and sent_second == 0
    assert f"generated 0, resumed {len(LIVE.items)}" in resumed.stderr
    (run,) = store.glob("*.sqlite")
    assert stored_meta(run, "battery_path") == str(second)  # where it was last seen
    shutil.rmtree(first.parent)  # the first checkout is gone: rescore finds the battery where it was last seen
    rescored = run_cli_in_process("rescore", run.stem, "--store", str(store))
    assert rescored.returncode == 0, rescored.stderr


PLAN = """name = "gloss-clone"
seeds = [0]

[sampling]
temperature = 0.0
max_tokens = 256

[fixture]
battery = "battery/gloss.jsonl"

[[arms]]
name = "good"
backend = "ollama"
model = "{model}"
base_urls = ["{url}"]
role = "candidate"

[instruments.gloss]
gate_config = "gloss-v2"
"""


def test_a_plan_folder_copied_elsewhere_resumes_the_plans_run(tmp_path: Path) -> None:
    store = tmp_path / "runs"
    behaviour = Behaviour(script=script_for(BATTERY), models={MODEL: "a" * 64})
    with FakeOllamaServer(behaviour) as server:
        folder = tmp_path / "clone-1"
        (folder / "battery").mkdir(parents=True)
        shutil.copyfile(BATTERY.path, folder / "battery" / "gloss.jsonl")
        (folder / "plan.toml").write_text(PLAN.format(model=MODEL, url=server.url))
        lock_plan(folder / "plan.toml")
        copy = shutil.copytree(folder, tmp_path / "elsewhere" / "clone-2")
        results = []
        for plan in (folder / "plan.toml", copy / "plan.toml"):
            out = plan.parent / "result.json"
            invoked = CliRunner().invoke(app, ["run", str(plan), "--store", str(store), "--json", str(out)])
            assert invoked.exception is None or isinstance(invoked.exception, SystemExit), invoked.exception
            results.append((invoked.exit_code, json.loads(out.read_text())))
        sent = len(server.generation_requests())
    (code1, first), (code2, second) = results
    assert sent == len(BATTERY.items)
    assert first["generation"]["generated"] == len(BATTERY.items)
    assert second["generation"]["generated"] == 0 and second["generation"]["skipped_finished"] == len(BATTERY.items)
    assert (code2, second["gate"]) == (code1, first["gate"]) == (0, "PASS")
    (run,) = store.glob("*.sqlite")
    assert stored_meta(run, "plan_file") == str(copy / "plan.toml")
