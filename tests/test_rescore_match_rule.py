"""The matching rule is part of the gate's identity: a stored run scored under the old substring rule,
re-scored now, says it was re-gated and keeps its own recorded verdict."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from backend_servers import Behaviour, FakeOllamaServer

from forgegate.core.match_rule import MATCH_RULE
from forgegate.gate.gloss_config import gate_identity, load_gate_config
from forgegate.pipeline.session.eval_session import run_session
from forgegate.pipeline.session.options import SessionOptions
from forgegate.pipeline.session.rescore import rescore_stored_run
from forgegate.store import RunMeta, RunStore, find_run

MODELS = {"gloss:v10": "e" * 64}
CONFIG = """name = "tiny"
gloss_v2 = false
category_floor = 0.5
sigma_total_min = 0.4
min_items = 2
wall_rule = true
[weights]
"LX-H" = 1.0
[live]
max_loops = 0
max_wall_violations = 0
min_correct = 8
"""
ITEMS = [
    {"id": "below", "category": "LX-H", "prompt": "Is 0.90 >= 0.974?", "expected": ["no", "below"],
     "max_tokens": 64, "eval_type": "contains"},
    {"id": "above", "category": "LX-H", "prompt": "Is 0.98 >= 0.974?", "expected": ["yes"],
     "max_tokens": 64, "eval_type": "contains"},
]
# a model that does not know: "not", "know" and "eyes" held "no" and "yes" for the substring rule
SCRIPT = {"Is 0.90 >= 0.974?": "I do not know.", "Is 0.98 >= 0.974?": "Only the eyes can tell."}


def _eval(tmp_path: Path) -> tuple[str, Path]:
    battery, config = tmp_path / "b.jsonl", tmp_path / "g.toml"
    battery.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    config.write_text(CONFIG, encoding="utf-8")
    with FakeOllamaServer(Behaviour(script=SCRIPT, models=MODELS)) as server:
        options = SessionOptions(kind="eval", backend="ollama", model="gloss:v10", base_urls=(server.url,),
                                 battery=battery, gate_config=config, concurrency=1, retries=1,
                                 store=tmp_path / "store", quiet=True)
        result = run_session(options).result
    payload = result.to_json()
    assert payload["gate"] == "FAIL" and [i["passed"] for i in payload["items"]] == [False, False]
    assert payload["gate_config"]["match_rule"] == MATCH_RULE
    return str(payload["run_id"]), config


def test_identity_covers_the_bytes_and_the_matching_rule(tmp_path: Path) -> None:
    _, config = _eval(tmp_path)
    raw = config.read_bytes()
    _, sha = load_gate_config(config)
    assert sha == gate_identity(raw) != hashlib.sha256(raw).hexdigest()
    assert gate_identity(raw, "substring") != sha


def test_a_run_under_the_current_rule_rescores_without_a_note(tmp_path: Path) -> None:
    run_id, _ = _eval(tmp_path)
    result, regated = rescore_stored_run(run_id, store_dir=tmp_path / "store", battery_path=None,
                                         gate_config_path=None)
    assert regated is None and result.regated_from is None and result.gate == "FAIL"


def test_a_run_scored_under_the_substring_rule_says_it_is_regated(tmp_path: Path) -> None:
    run_id, config = _eval(tmp_path)
    path = find_run(run_id, tmp_path / "store")
    old_sha = hashlib.sha256(config.read_bytes()).hexdigest()  # what the store held before word matching
    with RunStore.open(path, create=False) as store:
        store.update_meta(RunMeta(last_gate="PASS"))  # under substring matching both items passed
    with sqlite3.connect(path) as db:  # as a store written before the match rule was recorded holds it
        db.execute("UPDATE meta SET value = ? WHERE key = 'gate_config'", (json.dumps(
            {"path": str(config), "sha256": old_sha, "toml": config.read_text(encoding="utf-8")}),))
    result, regated = rescore_stored_run(run_id, store_dir=tmp_path / "store", battery_path=None,
                                         gate_config_path=None)
    assert regated is not None and MATCH_RULE in regated and "rule substring" in regated
    assert result.regated_from == old_sha and result.gate == "FAIL"
    with RunStore.open(path, create=False) as store:
        assert store.meta().last_gate == "PASS"  # the run's own recorded verdict is not overwritten
