"""Issue 33 against the REAL llama.cpp server of llama-cpp-python[server] on the packaged SmolLM2: at the default
``--concurrency 4`` forgegate ends with the same answers as at ``--concurrency 1``, both against a server the
user started (``interrupt_requests`` on, its default: forgegate lowers that endpoint to one request at a time)
and against the server forgegate starts itself (``--backend llamacpp``, started with interruption off)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from eval_helpers import read_json, run_cli
from llamacpp_server import llamacpp_server
from slow import starts_something

pytestmark = pytest.mark.slow

CONFIG = """name = "tiny"
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
PROMPTS = ["Name three colours.", "What is the capital of France?", "Count from one to ten.",
           "Write a haiku about rain.", "Why is the sky blue?", "List four fruits.", "Say hello in Spanish.",
           "What is two plus two?", "Describe a cat.", "Give me a word that rhymes with moon.",
           "What day comes after Monday?", "Name a famous painter."]


def write_inputs(folder: Path) -> tuple[Path, Path]:
    items = [{"id": f"p{i}", "category": "LX-IDENTITY" if i % 2 else "LX-SEMANTIC", "prompt": prompt,
              "expected": "the", "max_tokens": 24, "eval_type": "contains"} for i, prompt in enumerate(PROMPTS)]
    folder.mkdir(parents=True, exist_ok=True)
    battery, config = folder / "battery.jsonl", folder / "gate.toml"
    battery.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    config.write_text(CONFIG, encoding="utf-8")
    return battery, config


@pytest.fixture(scope="module")
@starts_something
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    with llamacpp_server(tmp_path_factory.mktemp("llamacpp")) as url:
        yield url


def answers(tmp_path: Path, name: str, concurrency: int, *backend: str) -> tuple[dict[str, Any], str]:
    battery, config = write_inputs(tmp_path / "in")
    proc = run_cli("eval", *backend, "--battery", str(battery), "--gate-config", str(config), "--quiet",
                   "--store", str(tmp_path / name), "--json", str(tmp_path / f"{name}.json"),
                   "--concurrency", str(concurrency))
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # a verdict, never INCOMPLETE
    result = read_json(tmp_path / f"{name}.json")
    assert all(item["error"] is None for item in result["items"])
    return {i["id"]: (i["response"], i["tokens"], i["finish"]) for i in result["items"]}, proc.stderr


def test_an_external_llamacpp_server_at_concurrency_4_gives_the_answers_of_concurrency_1(
        server_url: str, tmp_path: Path) -> None:
    external = ("--backend", "openai", "--base-url", server_url, "--model", "smollm2")
    serial, _ = answers(tmp_path, "serial", 1, *external)
    wide, err = answers(tmp_path, "wide", 4, *external)
    assert sum(tokens for _, tokens, _ in serial.values()) > len(PROMPTS)  # real answers, not empty ones
    assert wide == serial
    # it saw the cuts and said what it did, in one calm line (issue 45)
    (line,) = [ln for ln in err.splitlines() if "stream" in ln]
    assert server_url in line
    assert line.endswith(": this server answers one stream at a time; forgegate sent one at a time from then on")


def test_the_managed_llamacpp_server_at_concurrency_4_gives_the_answers_of_concurrency_1(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    serial, _ = answers(tmp_path, "serial", 1, "--backend", "llamacpp")
    wide, err = answers(tmp_path, "wide", 4, "--backend", "llamacpp")
    assert sum(tokens for _, tokens, _ in serial.values()) > len(PROMPTS)
    assert wide == serial
    assert "one stream at a time" not in err  # started with interrupt_requests off: nothing was cut
