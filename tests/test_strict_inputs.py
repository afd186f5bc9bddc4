"""Hostile user files get a clear word at their line and exit 2: no coercion, no crash, one loader for all."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from battery_helpers import item, write_lines
from instruments_helpers import CliResult, run_cli

from forgegate.battery import bundled_battery_path, load_battery
from forgegate.core import Completion, GenerationRequest
from forgegate.core.limits import MAX_TOKENS_LIMIT
from forgegate.errors import InputError
from forgegate.gate.gloss_config import bundled_gate_config_path, gate_identity, load_gate_config
from forgegate.jsonio import MAX_JSON_DEPTH
from forgegate.pipeline.plan.store import plan_run_state
from forgegate.plan import lock_path, lock_plan
from forgegate.store import RunMeta, RunStore
from tests.plan_helpers import PLAN, write_plan_folder

DEEP = "[" * 100_000
LONE_SURROGATE = '{"category": "LX-A", "prompt": "a \\ud800 b", "expected": "NOUS", "max_tokens": 64, ' \
                 '"eval_type": "contains"}'
REPEATED_KEY = '{"category": "LX-A", "prompt": "first", "prompt": "second", "expected": "NOUS", ' \
               '"max_tokens": 64, "eval_type": "contains"}'

# (bad line, what the message must say, the field it names)
BAD_LINES: dict[str, tuple[str, str, str | None]] = {
    "max_tokens true": (json.dumps(item(max_tokens=True)), "must be a whole number, not true", "max_tokens"),
    "max_tokens quoted": (json.dumps(item(max_tokens="32")), "not the string '32' (write it without quotes)",
                          "max_tokens"),
    "max_tokens 10**30": (json.dumps(item(max_tokens=10**30)), f"must be at most {MAX_TOKENS_LIMIT}", "max_tokens"),
    "repeated key": (REPEATED_KEY, "key 'prompt' appears twice in one object", "prompt"),
    "lone surrogate": (LONE_SURROGATE, "lone surrogate \\ud800", "prompt"),
    "control character": (json.dumps(item(prompt="clear\x1b[2J")), "control character U+001B", "prompt"),
    "100,000 nested [": (DEEP, f"nested 100000 levels deep (at most {MAX_JSON_DEPTH})", None),
}


def _battery_with(tmp_path: Path, bad: str) -> Path:
    """The bundled battery (every gate category present) with ``bad`` as its third line."""
    lines = bundled_battery_path().read_text(encoding="utf-8").splitlines()
    path = tmp_path / "battery.jsonl"
    path.write_text("\n".join([*lines[:2], bad, *lines[2:]]) + "\n", encoding="utf-8")
    return path


def _refused(result: CliResult, where: str) -> str:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "error:" in result.stderr
    assert where in result.stderr, result.stderr
    return result.stderr


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_a_bad_battery_line_is_refused_at_its_line(case: str, tmp_path: Path) -> None:
    line, said, field = BAD_LINES[case]
    path = write_lines(tmp_path / "b.jsonl", item(), line)
    with pytest.raises(InputError) as info:
        load_battery(path)
    assert (info.value.line, info.value.field) == (2, field)
    assert said in info.value.message and "Value error" not in str(info.value)


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_battery_check_and_eval_refuse_the_same_file_with_the_same_words(case: str, tmp_path: Path) -> None:
    line, said, _field = BAD_LINES[case]
    path = _battery_with(tmp_path, line)
    check = _refused(run_cli("battery", "check", str(path)), f"{path}:3:")
    evaluated = _refused(run_cli("eval", "--battery", str(path), "--backend", "openai", "--model", "m",
                                 "--base-url", "http://127.0.0.1:9", "--retries", "1", "--quiet",
                                 "--store", str(tmp_path / "runs")), f"{path}:3:")
    assert said in check and check == evaluated
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())  # nothing was stored


def test_a_byte_order_mark_is_accepted_by_battery_check(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(item(), ensure_ascii=False).encode("utf-8") + b"\n")
    result = run_cli("battery", "check", str(path))
    assert result.returncode == 0 and "valid battery" in result.stdout
    assert load_battery(path).sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_complete_surrogate_pair_and_newlines_in_a_prompt_are_fine(tmp_path: Path) -> None:
    line = '{"category": "LX-A", "prompt": "smile \\ud83d\\ude00\\nnext\\tline", "expected": "NOUS", ' \
           '"max_tokens": 64, "eval_type": "contains"}'
    assert load_battery(write_lines(tmp_path / "b.jsonl", line)).items[0].prompt == "smile 😀\nnext\tline"


def _gate_file(tmp_path: Path, old: str, new: str, *, bom: bool = False) -> Path:
    text = bundled_gate_config_path().read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "gate.toml"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.replace(old, new).encode("utf-8"))
    return path


# (what is replaced in the bundled gate config, by what, the line and field named, what the message says)
BAD_GATES = {
    "quoted weight": ('"LX-A" = 0.10', '"LX-A" = "0.10"', 10, "weights.LX-A",
                      "must be a number, not the string '0.10' (write it without quotes)"),
    "wall_rule yes": ("wall_rule = true", 'wall_rule = "yes"', 7, "wall_rule",
                      "must be true or false, not the string 'yes'"),
    "NaN floor": ("category_floor = 0.50", "category_floor = nan", 4, "category_floor", "not a number (nan)"),
    "weights off": ('"LX-A" = 0.10', '"LX-A" = 0.20', 9, "weights", "weights must sum to 1, they sum to 1.100000"),
    "typo": ("min_items = 80", "min_item = 80", 6, "min_item", "unknown field (typo?)"),
    "repeated key": ("min_items = 80", "min_items = 80\nmin_items = 81", 7, None,
                     "key 'min_items' is written twice (first on line 6)"),
}


@pytest.mark.parametrize("case", list(BAD_GATES))
def test_a_bad_gate_config_is_refused_at_its_line_without_pydantic_prefixes(case: str, tmp_path: Path) -> None:
    old, new, line, field, said = BAD_GATES[case]
    path = _gate_file(tmp_path, old, new)
    with pytest.raises(InputError) as info:
        load_gate_config(path)
    assert (info.value.line, info.value.field) == (line, field)
    assert said in info.value.message and "Value error" not in str(info.value)
    assert "should be" not in info.value.message  # pydantic's wording ("should be <= 1") is not ours
    result = run_cli("eval", "--gate-config", str(path), "--backend", "openai", "--model", "m",
                     "--base-url", "http://127.0.0.1:9", "--quiet", "--store", str(tmp_path / "runs"))
    _refused(result, f"{path}:{line}:")


def test_a_gate_config_with_a_byte_order_mark_loads_and_hashes_its_bytes(tmp_path: Path) -> None:
    path = _gate_file(tmp_path, "min_items = 80", "min_items = 80", bom=True)
    config, sha = load_gate_config(path)
    assert config == load_gate_config()[0]
    assert sha == gate_identity(path.read_bytes()) != gate_identity(path.read_bytes().removeprefix(b"\xef\xbb\xbf"))


# (what is replaced in the helper plan, by what, the line and field named, what the message says)
BAD_PLANS = {
    "seed count 0": ("seeds = [1, 2]", "seeds = {first = 1, count = 0}", 3, "seeds.count",
                     "must be at least 1, not 0"),
    "quoted max_tokens": ("max_tokens = 40", 'max_tokens = "40"', 7, "sampling.max_tokens",
                          "must be a whole number, not the string '40'"),
    "huge max_tokens": ("max_tokens = 40", "max_tokens = 100000", 7, "sampling.max_tokens",
                        f"must be at most {MAX_TOKENS_LIMIT}, not 100000"),
    "boolean seed": ("seeds = [1, 2]", "seeds = [1, true]", 3, "seeds.1", "must be a whole number, not true"),
    "NaN temperature": ("temperature = 0.7", "temperature = nan", 6, "sampling.temperature", "not a number"),
    "quoted margin": ("hit_rate_margin = 0.0", 'hit_rate_margin = "0"', 32, "instruments.memorization.hit_rate_margin",
                      "must be a number, not the string '0'"),
}


@pytest.mark.parametrize("case", list(BAD_PLANS))
def test_a_bad_plan_value_is_refused_at_its_line(case: str, tmp_path: Path) -> None:
    old, new, line, field, said = BAD_PLANS[case]
    assert old in PLAN
    plan = write_plan_folder(tmp_path, PLAN.replace(old, new))
    result = _refused(run_cli("plan", "lock", str(plan), "--store", str(tmp_path / "runs")), f"{plan}:{line}:")
    assert f"field '{field}': {said}" in result
    assert "valid tuple" not in result and "Value error" not in result


def test_a_plan_with_a_byte_order_mark_locks_to_the_same_hash(tmp_path: Path) -> None:
    plan = write_plan_folder(tmp_path / "a")
    bommed = write_plan_folder(tmp_path / "b")
    bommed.write_bytes(b"\xef\xbb\xbf" + bommed.read_bytes())
    assert lock_plan(plan).plan_hash == lock_plan(bommed).plan_hash


def test_deleting_the_lock_does_not_unfreeze_a_plan_whose_run_has_generations(tmp_path: Path) -> None:
    plan = write_plan_folder(tmp_path / "p")
    store_dir = tmp_path / "runs"
    assert run_cli("plan", "lock", str(plan), "--store", str(store_dir)).returncode == 0
    with RunStore.open(plan_run_state(plan, store_dir).store_path) as store:  # as a plan run stores it
        store.update_meta(RunMeta(plan_hash=lock_plan(plan).plan_hash))
        store.record(request_key="base/b0/1", arm="base", item_id="b0", seed=1,
                     request=GenerationRequest(prompt="p", max_tokens=4),
                     completion=Completion("x", 1, "tokenizer", "stop", 0.1), error=None, attempts=1)
    lock_path(plan).unlink()
    plan.write_text(plan.read_text().replace("max_margin = 0", "max_margin = 5"))
    result = _refused(run_cli("plan", "lock", str(plan), "--store", str(store_dir)), "changed after its run's first")
    assert "the rule does not move" in result
    assert not lock_path(plan).exists()
    plan.write_text(plan.read_text().replace("max_margin = 5", "max_margin = 0"))  # the plan as it ran: fine
    assert run_cli("plan", "lock", str(plan), "--store", str(store_dir)).returncode == 0
