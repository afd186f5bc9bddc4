"""Read once (issue 34, item 6): an eval reads its gate config once; the bytes it hashed are the bytes it
stores, so a file changed while the run starts, or written with CRLF line ends, still gives a run whose stored
config, recorded sha256 and re-scored verdict agree.

Generation goes to the fake Ollama server (tests/backend_servers.py): the point is what the store keeps, not
the model, and a real model would make this a slow test for nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from backend_servers import Behaviour, FakeOllamaServer

from forgegate import jsonio
from forgegate.gate import gloss_config
from forgegate.gate.gloss_config import gate_identity
from forgegate.pipeline import gloss_inputs
from forgegate.pipeline.session.eval_session import SessionRun, run_session
from forgegate.pipeline.session.options import SessionOptions
from forgegate.pipeline.session.rescore import rescore_stored_run
from forgegate.store import RunStore, StoredGateConfig, find_run

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
    {"id": "below", "category": "LX-H", "prompt": "Is 0.90 >= 0.974?", "expected": ["no"],
     "max_tokens": 64, "eval_type": "contains"},
    {"id": "above", "category": "LX-H", "prompt": "Is 0.98 >= 0.974?", "expected": ["yes"],
     "max_tokens": 64, "eval_type": "contains"},
]
SCRIPT = {"Is 0.90 >= 0.974?": "no", "Is 0.98 >= 0.974?": "yes"}


def _session(tmp_path: Path, config: Path) -> SessionRun:
    battery = tmp_path / "b.jsonl"
    battery.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    with FakeOllamaServer(Behaviour(script=SCRIPT, models=MODELS)) as server:
        return run_session(SessionOptions(kind="eval", backend="ollama", model="gloss:v10", base_urls=(server.url,),
                                          battery=battery, gate_config=config, concurrency=1, retries=1,
                                          store=tmp_path / "store", quiet=True))


def _stored(tmp_path: Path, run_id: str) -> StoredGateConfig:
    with RunStore.open(find_run(run_id, tmp_path / "store"), readonly=True) as store:
        stored = store.meta().gate_config
    assert stored is not None
    return stored


def test_a_gate_config_changed_after_it_was_read_leaves_stored_bytes_and_sha_agreeing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is rewritten (floor 0.5 -> 0.9) right after its first read; whatever reads it again would store
    a config whose sha is not the one the run records and was gated under."""
    config = tmp_path / "g.toml"
    config.write_text(CONFIG, encoding="utf-8")
    changed = CONFIG.replace("category_floor = 0.5", "category_floor = 0.9")
    reads: list[Path] = []
    real_read = jsonio.read_bytes_or_input_error

    def read_then_change(path: Path, **kw: Any) -> bytes:
        raw = real_read(path, **kw)
        if Path(path) == config:
            reads.append(path)
            config.write_text(changed, encoding="utf-8")
        return raw

    for module in (gloss_inputs, gloss_config):  # every reader of a gate config goes through the one file reader
        monkeypatch.setattr(module, "read_bytes_or_input_error", read_then_change)
    session = _session(tmp_path, config)
    assert reads, "the gate config was never read through the one file reader: the test no longer changes it"
    stored = _stored(tmp_path, str(session.result.run_id))
    assert stored.toml == CONFIG  # the bytes that were read, not the file as it is now
    assert stored.sha256 == gate_identity(stored.toml.encode("utf-8")) == session.result.gate_config.sha256
    assert config.read_text(encoding="utf-8") == changed  # the change really happened
    monkeypatch.undo()
    _, regated = rescore_stored_run(str(session.result.run_id), store_dir=tmp_path / "store", battery_path=None,
                                    gate_config_path=None)
    assert regated is None  # re-scored under its own stored config: the same identity, no "re-gated" note


def test_a_crlf_gate_config_is_stored_byte_for_byte_and_rescores_as_its_own(tmp_path: Path) -> None:
    """Text-mode reading turns CRLF into LF: a stored copy read that way would hash to another sha than the
    one recorded, and re-scoring the run under its own config would call it re-gated."""
    config = tmp_path / "g.toml"
    config.write_bytes(CONFIG.replace("\n", "\r\n").encode("utf-8"))
    session = _session(tmp_path, config)
    stored = _stored(tmp_path, str(session.result.run_id))
    assert stored.toml.encode("utf-8") == config.read_bytes()
    assert stored.sha256 == gate_identity(config.read_bytes()) == session.result.gate_config.sha256
    result, regated = rescore_stored_run(str(session.result.run_id), store_dir=tmp_path / "store",
                                         battery_path=None, gate_config_path=None)
    assert regated is None and result.regated_from is None
    assert result.gate == session.result.gate == "PASS"
