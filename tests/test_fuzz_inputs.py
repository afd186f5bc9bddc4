"""Fuzzing the user files: every battery, plan and gate config, valid or mangled, is read or refused cleanly.

Hypothesis builds valid files and mutates them (a key deleted or written twice, a value swapped for
another type, deep nesting, odd encodings, cut short). Each outcome must be a normal result or a
clean refusal (an InputError from the loader; exit 2 with one ``error:`` line from the CLI), never a
traceback and never exit 1, which is the code for a failed gate. Nothing here calls a model: the CLI
runs ``battery check``, ``plan lock`` / ``plan check`` and, only where the loader refused the file,
``eval`` (which must refuse it before generating). Examples are bounded for CI.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from instruments_helpers import CliResult, run_cli

from forgegate.battery import bundled_battery_path, load_battery
from forgegate.errors import InputError
from forgegate.gate.gloss_config import bundled_gate_config_path, load_gate_config
from forgegate.plan import load_plan
from tests.plan_helpers import PLAN, write_plan_folder

FUZZ = settings(max_examples=60, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CATEGORIES = ("LX-A", "LX-STOP", "QA")
EVAL_TYPES = ("exact", "contains", "reject", "semantic")
WEIRD_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=20)
"""Any Unicode a UTF-8 file can hold: controls, bidi, zero-width and astral characters included."""

# Values of every JSON type, including the ones strict mode must refuse where a number or a string goes.
JSON_VALUES: st.SearchStrategy[Any] = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False), WEIRD_TEXT,
    st.sampled_from(["32", "0.10", "yes", "true", "", "NaN"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@st.composite
def battery_items(draw: st.DrawFn) -> dict[str, Any]:
    """A valid battery item (some optional fields drawn too)."""
    item: dict[str, Any] = {
        "category": draw(st.sampled_from(CATEGORIES)),
        "prompt": draw(st.text(max_size=30).filter(str.isprintable)),
        "expected": draw(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=3)),
        "max_tokens": draw(st.integers(min_value=1, max_value=512)),
        "eval_type": draw(st.sampled_from(EVAL_TYPES)),
    }
    if draw(st.booleans()):
        item["forbid"] = draw(st.lists(st.text(min_size=1, max_size=5), max_size=2))
    if draw(st.booleans()):
        item["tags"] = draw(st.lists(st.sampled_from(["LOOP-TRIGGER", "HUMAN-INPUT", "EMPTY-PROMPT"]), max_size=2))
    return item


def _object_text(pairs: list[tuple[str, Any]]) -> str:
    """A JSON object written from pairs, so a key can appear twice (``json.dumps`` cannot write that)."""
    return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}"


@st.composite
def mutated_line(draw: st.DrawFn, item: dict[str, Any]) -> str:
    """One battery line: the item as it is, or mangled one way."""
    pairs = list(item.items())
    key = draw(st.sampled_from([k for k, _ in pairs]))
    how = draw(st.sampled_from(["keep", "delete", "duplicate", "swap", "nest", "surrogate", "control", "cut",
                                "unknown key", "not an object"]))
    if how == "delete":
        pairs = [(k, v) for k, v in pairs if k != key]
    elif how == "duplicate":
        pairs.append((key, draw(JSON_VALUES)))
    elif how == "swap":
        pairs = [(k, draw(JSON_VALUES) if k == key else v) for k, v in pairs]
    elif how == "unknown key":
        pairs.append((draw(st.text(min_size=1, max_size=10)), draw(JSON_VALUES)))
    text = _object_text(pairs)
    if how == "nest":
        depth = draw(st.sampled_from([2, 63, 65, 1000, 100_000]))
        text = text.replace(json.dumps(key) + ": ", json.dumps(key) + ": " + "[" * depth, 1) + "]" * depth
    elif how == "surrogate":
        text = text.replace('"prompt": "', '"prompt": "\\ud800', 1)
    elif how == "control":
        text = text.replace('"prompt": "', '"prompt": "\\u001b[2J', 1)
    elif how == "cut":
        text = text[: draw(st.integers(min_value=0, max_value=max(0, len(text) - 1)))]
    elif how == "not an object":
        text = json.dumps(draw(JSON_VALUES))
    return text


ENCODINGS = ["utf-8", "utf-8 with BOM", "utf-16", "latin-1", "CRLF", "NUL byte", "invalid byte"]


def encode(text: str, how: str) -> bytes:
    """``text`` as bytes the way an odd editor might write it."""
    if how == "utf-8 with BOM":
        return b"\xef\xbb\xbf" + text.encode("utf-8")
    if how == "utf-16":
        return text.encode("utf-16")
    if how == "latin-1":
        return text.encode("latin-1", "replace")
    if how == "CRLF":
        return text.replace("\n", "\r\n").encode("utf-8")
    if how == "NUL byte":
        return text.encode("utf-8").replace(b"\n", b"\n\x00", 1)
    if how == "invalid byte":
        return text.encode("utf-8") + b"\xff\n"
    return text.encode("utf-8")


@st.composite
def battery_files(draw: st.DrawFn) -> bytes:
    items = draw(st.lists(battery_items(), min_size=1, max_size=4))
    lines = [draw(mutated_line(item)) if draw(st.booleans()) else json.dumps(item) for item in items]
    return encode("\n".join(lines) + "\n", draw(st.sampled_from(ENCODINGS)))


def assert_clean(result: CliResult, *, ok: tuple[int, ...] = (0, 2)) -> None:
    """A normal result or one clean refusal: never a traceback, never exit 1 (a failed gate's code)."""
    assert result.returncode in ok, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    if result.returncode == 2:
        assert result.stderr.startswith("error:"), result.stderr


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@FUZZ
@given(data=battery_files())
def test_any_battery_file_is_loaded_or_refused_the_same_way_by_the_loader_and_battery_check(
        data: bytes, folder: Path) -> None:
    path = folder / "battery.jsonl"
    path.write_bytes(data)
    try:
        load_battery(path)
        loaded = True
    except InputError:
        loaded = False
    result = run_cli("battery", "check", str(path))
    assert_clean(result)
    assert (result.returncode == 0) == loaded


@FUZZ
@given(line=battery_items().flatmap(mutated_line))
def test_a_refused_battery_line_is_refused_by_eval_before_anything_runs(line: str, folder: Path) -> None:
    lines = bundled_battery_path().read_text(encoding="utf-8").splitlines()
    path = folder / "eval-battery.jsonl"
    path.write_text("\n".join([line, *lines]) + "\n", encoding="utf-8")
    try:
        load_battery(path)
        return  # a valid line: eval would generate, which this suite never does
    except InputError as exc:
        where = f"{path}:{exc.line}:" if exc.line is not None else str(path)
    store = folder / "eval-runs"
    result = run_cli("eval", "--battery", str(path), "--backend", "openai", "--model", "m", "--base-url",
                     "http://127.0.0.1:9", "--retries", "1", "--quiet", "--store", str(store))
    assert_clean(result, ok=(2,))
    assert where in result.stderr, result.stderr
    assert not store.exists() or not any(store.iterdir())


TOML_VALUES = st.sampled_from([
    '"32"', "true", '"yes"', "nan", "inf", "-1", "0", "1e999", "99999999999999999999999", "1" * 5000,
    '"\\u001b"', '"\\ud800"', "[1, \"a\"]", "{ a = 1 }", "[]", "{}", '""', "1979-05-27T07:32:00Z",
    "[" * 70 + "]" * 70, "[" * 3000, "'literal'", '"""multi\nline"""',
])


@st.composite
def mutated_toml(draw: st.DrawFn, text: str) -> bytes:
    """A TOML file with one line deleted, repeated or given another value, then oddly encoded."""
    lines = text.splitlines()
    index = draw(st.integers(min_value=0, max_value=len(lines) - 1))
    how = draw(st.sampled_from(["keep", "delete", "duplicate", "swap", "swap", "cut", "header twice"]))
    if how == "delete":
        del lines[index]
    elif how == "duplicate":
        lines.insert(index, lines[index])
    elif how == "swap" and "=" in lines[index]:
        lines[index] = lines[index].split("=", 1)[0] + "= " + draw(TOML_VALUES)
    elif how == "cut":
        lines[index] = lines[index][: len(lines[index]) // 2]
    elif how == "header twice":
        headers = [line for line in lines if line.startswith("[") and not line.startswith("[[")]
        if headers:
            lines.append(draw(st.sampled_from(headers)))
    return encode("\n".join(lines) + "\n", draw(st.sampled_from(ENCODINGS)))


@FUZZ
@given(data=mutated_toml(PLAN))
def test_any_plan_is_locked_or_refused_cleanly_and_a_locked_plan_checks(data: bytes, folder: Path) -> None:
    plan = write_plan_folder(folder / "plan")
    plan.write_bytes(data)
    plan.with_name(plan.name + ".lock").unlink(missing_ok=True)
    store = folder / "plan-runs"
    try:
        load_plan(plan)
        loaded = True
    except InputError:
        loaded = False
    locked = run_cli("plan", "lock", str(plan), "--store", str(store))
    assert_clean(locked)
    if locked.returncode == 0:
        assert loaded
        assert_clean(run_cli("plan", "check", str(plan), "--store", str(store)))  # 2: e.g. an adapter path


GATE = bundled_gate_config_path().read_text(encoding="utf-8")


@FUZZ
@given(data=mutated_toml(GATE))
def test_any_gate_config_is_loaded_or_refused_cleanly(data: bytes, folder: Path) -> None:
    path = folder / "gate.toml"
    path.write_bytes(data)
    try:
        load_gate_config(path)
        return  # a valid config: eval would generate, which this suite never does
    except InputError as exc:
        assert exc.message and "Value error" not in exc.message
    result = run_cli("eval", "--gate-config", str(path), "--backend", "openai", "--model", "m", "--base-url",
                     "http://127.0.0.1:9", "--quiet", "--store", str(folder / "gate-runs"))
    assert_clean(result, ok=(2,))
