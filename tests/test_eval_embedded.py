"""`forgegate eval` and `live` on the real embedded model (SmolLM2-135M-Instruct through llama-cpp-python).

Exact text differs across builds, so these tests assert what must hold on every machine: a
verdict word with its exit code, caps honoured, finish reasons, token counts, and that the
same seed in the same build gives the same answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_helpers import read_json, run_cli

from forgegate.core.verdict import Gate

pytestmark = pytest.mark.slow

ITEMS = [
    {"category": "LX-IDENTITY", "prompt": "⊙ α?", "expected": "NOUS", "max_tokens": 64, "within_tokens": 32,
     "eval_type": "contains"},
    {"category": "LX-STOP", "prompt": "What is Φ?", "expected": "0.042", "max_tokens": 48, "stop_within": 40,
     "eval_type": "contains"},
    {"category": "LX-Z", "prompt": "What is the capital of France?", "expected": ["HOW ABOUT NO"],
     "max_tokens": 48, "eval_type": "reject", "tags": ["HUMAN-INPUT"]},
    {"category": "LX-LIVE-GEN", "prompt": "List the days of the week, again and again, forever.",
     "expected": ["Monday"], "max_tokens": 24, "eval_type": "contains"},
]
CONFIG = """name = "tiny"
gloss_v2 = false
category_floor = 0.5
sigma_total_min = 0.4
min_items = 4
wall_rule = true
[weights]
"LX-IDENTITY" = 0.25
"LX-STOP" = 0.25
"LX-Z" = 0.25
"LX-LIVE-GEN" = 0.25
[live]
max_loops = 0
max_wall_violations = 0
min_correct = 8
"""


@pytest.fixture(scope="module")
def small_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("embedded")
    battery = root / "small.jsonl"
    battery.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in ITEMS), encoding="utf-8")
    config = root / "tiny.toml"
    config.write_text(CONFIG, encoding="utf-8")
    return battery, config


def test_embedded_eval_gives_a_verdict_with_caps_and_finish_reasons(small_inputs: tuple[Path, Path],
                                                                    tmp_path: Path) -> None:
    battery, config = small_inputs
    out = tmp_path / "r.json"
    proc = run_cli("eval", "--battery", str(battery), "--gate-config", str(config), "--json", str(out),
                   "--store", str(tmp_path / "s"))
    result = read_json(out)
    assert result["gate"] in ("PASS", "FAIL"), proc.stderr
    assert proc.returncode == Gate(result["gate"]).exit_code
    assert f"GATE: {result['gate']}" in proc.stdout
    assert result["backend"] == "embedded" and result["model"].endswith(".gguf")
    assert len(result["model_digest"]) == 64
    assert result["token_sources"] == ["embedded-tokens"]
    caps = {item["prompt"]: item["max_tokens"] for item in ITEMS}
    for item in result["items"]:
        assert item["finish"] in ("stop", "length", "loop")
        assert 0 <= item["tokens"] <= caps[item["prompt"]]
        if item["finish"] == "length":
            assert item["tokens"] == caps[item["prompt"]]
    # the 24-token cap on an endless list must end in 'length'
    days = next(i for i in result["items"] if i["category"] == "LX-LIVE-GEN")
    assert days["finish"] == "length" and days["tokens"] == 24


def test_embedded_answers_repeat_for_the_same_seed(small_inputs: tuple[Path, Path], tmp_path: Path) -> None:
    battery, config = small_inputs
    responses = []
    for n in range(2):
        out = tmp_path / f"r{n}.json"
        run_cli("eval", "--battery", str(battery), "--gate-config", str(config), "--json", str(out),
                "--store", str(tmp_path / f"s{n}"), "--quiet", "--seed", "7")
        responses.append([(i["response"], i["tokens"]) for i in read_json(out)["items"]])
    assert responses[0] == responses[1]


def test_rescore_of_a_stored_run_gives_the_same_verdict_without_generating(small_inputs: tuple[Path, Path],
                                                                            tmp_path: Path) -> None:
    battery, config = small_inputs
    store = tmp_path / "s"
    run_cli("eval", "--battery", str(battery), "--gate-config", str(config), "--json", str(tmp_path / "a.json"),
            "--store", str(store), "--quiet")
    run_file = next(store.glob("*.sqlite"))
    mtime_rows = run_file.stat().st_size
    proc = run_cli("rescore", str(run_file), "--gate-config", str(config), "--json", str(tmp_path / "b.json"))
    first, second = read_json(tmp_path / "a.json"), read_json(tmp_path / "b.json")
    assert proc.returncode in (0, 1)
    assert first["gate"] == second["gate"] and first["items"] == second["items"]
    assert run_file.stat().st_size >= mtime_rows


def test_embedded_live_test_applies_its_own_rule(tmp_path: Path) -> None:
    out = tmp_path / "live.json"
    proc = run_cli("live", "--json", str(out), "--store", str(tmp_path / "s"))
    result = read_json(out)
    assert result["kind"] == "live" and result["battery"]["items"] == 10
    assert proc.returncode == Gate(result["gate"]).exit_code
    rules = {r["rule"] for r in result["reasons"]}
    assert {"loops <= 0", "wall violations <= 0", "correct >= 8/10"} <= rules
