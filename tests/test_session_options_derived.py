"""One list each (issue 34, item 4): which backends need ``--model`` is read from the registered classes, and
every session option, ``--training-corpus`` included, reaches the Python API as it reaches the CLI.

Generation goes to the fake Ollama server: what is checked is the options' road, not the model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import read_json, run_cli_in_process

import forgegate
from forgegate.backends import BACKENDS
from forgegate.backends.names import is_remote
from forgegate.errors import UsageError
from forgegate.pipeline.session.options import SessionOptions
from forgegate.registry import Registry

MODELS = {"gloss:v10": "e" * 64}
CONFIG = """name = "tiny-format"
gloss_v2 = false
category_floor = 0.5
sigma_total_min = 0.4
min_items = 1
wall_rule = true
[weights]
"LX-B" = 1.0
[live]
max_loops = 0
max_wall_violations = 0
min_correct = 8
"""
ITEMS = [{"id": "LX-B-01", "category": "LX-B", "prompt": "### Instruction:\nName glyph one.\n### Response:",
          "expected": ["α"], "max_tokens": 32, "eval_type": "contains"}]


def test_every_registered_backend_declares_whether_it_is_remote_on_its_class() -> None:
    declared = {name: is_remote(name) for name in BACKENDS.names()}
    assert all(isinstance(BACKENDS.get(name).remote, bool) for name in declared)  # type: ignore[attr-defined]
    for name, remote in declared.items():
        if remote:
            with pytest.raises(UsageError, match=f"^--model is required with --backend {name} "):
                SessionOptions(backend=name)
    assert any(declared.values()) and not all(declared.values())


def test_a_backend_class_that_does_not_declare_remote_is_an_error_not_a_guess(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new backend that forgot ``remote`` must not be taken for a local one (its results would carry no
    label); the names module reads the one registry, so a stand-in registry shows the rule."""
    import forgegate.backends.names as names

    stand_in: Registry[object] = Registry("backend")

    @stand_in.register("mystery")
    class Mystery:
        """A backend class with no capability declared."""

    monkeypatch.setattr(names, "BACKENDS", stand_in)
    with pytest.raises(TypeError, match="backend 'mystery' declares no 'remote' capability"):
        names.is_remote("mystery")


def test_the_training_corpus_reaches_the_api_as_it_reaches_the_cli(tmp_path: Path) -> None:
    battery, config, corpus = tmp_path / "b.jsonl", tmp_path / "g.toml", tmp_path / "train.jsonl"
    battery.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in ITEMS), encoding="utf-8")
    config.write_text(CONFIG, encoding="utf-8")
    rows = [{"prompt": f"### Instruction:\nname the glyph number {i}\n### Response:", "completion": "α"}
            for i in range(30)]
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    script = {ITEMS[0]["prompt"]: "no idea"}  # LX-B fails: GLOSS v2's follow-up is the format audit
    with FakeOllamaServer(Behaviour(script=script, models=MODELS)) as server:
        common = {"backend": "ollama", "model": "gloss:v10", "base_urls": [server.url], "gate_config": config,
                  "store": tmp_path / "store", "concurrency": 1, "retries": 1}
        through_api = forgegate.evaluate(battery, training_corpus=corpus, **common)  # type: ignore[arg-type]
        without = forgegate.evaluate(battery, **common)  # type: ignore[arg-type]
        out = tmp_path / "cli.json"
        done = run_cli_in_process("eval", "--battery", str(battery), "--gate-config", str(config), "--backend",
                                  "ollama", "--model", "gloss:v10", "--base-url", server.url, "--store",
                                  str(tmp_path / "store"), "--concurrency", "1", "--retries", "1", "--quiet",
                                  "--training-corpus", str(corpus), "--json", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    followup = through_api.format_followup
    assert followup is not None and followup.corpus == str(corpus) and followup.audit_gate is not None
    assert without.format_followup is not None and without.format_followup.corpus is None
    assert read_json(out)["format_followup"] == followup.model_dump(mode="json")
    assert through_api.gate == without.gate == "FAIL"  # the audit explains a FAIL, it never lifts it
