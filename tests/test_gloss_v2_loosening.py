"""Issue 35, item 1: nothing loosens the gate under the GLOSS v2 name: the [loops] fields, the weights and the
battery's structure are held to the spec; the same config or battery runs honestly under ``gloss_v2 = false``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forgegate.battery.loader import load_battery
from forgegate.battery.resources import bundled_battery_path
from forgegate.checks import detect_loop
from forgegate.core.gloss_v2 import GLOSS_V2_WEIGHTS
from forgegate.core.loop_settings import SPEC_LOOP_SETTINGS, LoopSettings
from forgegate.errors import InputError
from forgegate.gate.gloss_config import bundled_gate_config_path, load_gate_config
from forgegate.gate.loop_strictness import STRICTER

BUNDLED = bundled_gate_config_path().read_text(encoding="utf-8")
AT_THEIR_STRICTEST = {"phrase_tokens"}


def _write(tmp_path: Path, text: str, name: str = "gate.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _nudge(name: str, towards: str) -> str:
    """A TOML value for ``name`` one step from GLOSS v2's in the direction ``towards`` ('lower' or 'higher')."""
    base = getattr(SPEC_LOOP_SETTINGS, name)
    step = 1 if isinstance(base, int) else 0.5
    return repr(base - step if towards == "lower" else base + step)


def test_every_loop_field_has_a_stricter_direction() -> None:
    """A field added to LoopSettings without a direction could be loosened silently."""
    assert set(STRICTER) == set(LoopSettings.model_fields)


@pytest.mark.parametrize("name", sorted(STRICTER))
def test_each_loop_field_may_move_only_in_its_stricter_direction(tmp_path: Path, name: str) -> None:
    stricter = STRICTER[name]
    looser = "higher" if stricter == "lower" else "lower"
    text = BUNDLED + f"\n[loops]\n{name} = {_nudge(name, looser)}\n"
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as refused:
        load_gate_config(path)
    error = refused.value
    assert error.field == f"loops.{name}" and error.line == len(text.splitlines())
    assert "invariant 3" in error.message and "gloss_v2 = false" in str(error)
    if name in AT_THEIR_STRICTEST:  # GLOSS v2's value is the least the field takes: nothing is stricter
        return
    config, _ = load_gate_config(_write(tmp_path, BUNDLED + f"\n[loops]\n{name} = {_nudge(name, stricter)}\n"))
    assert config.gloss_v2


def test_phrase_tokens_is_at_its_strictest_under_gloss_v2() -> None:
    """Invariant 3, "same token or short phrase repeated ≥3 times consecutively" (issue 44): any phrase counts, so
    GLOSS v2's ``phrase_tokens`` is 1, the least the field takes."""
    assert SPEC_LOOP_SETTINGS.phrase_tokens == 1
    with pytest.raises(ValueError):
        LoopSettings(phrase_tokens=0)


ISSUE_LOOSE_LOOPS = "\n[loops]\nmax_period = 1\nchain_tokens = 1000\nchar_run_repeats = 50\nmin_unit_word_chars = 100\n"


def test_the_issues_loosened_loop_rule_is_refused_and_would_have_missed_its_loops(tmp_path: Path) -> None:
    """Under it, "la femme, la femme, la femme", "αααααααα" and the v9 chain stop being loops (issue 35)."""
    loose = LoopSettings(max_period=1, chain_tokens=1000, char_run_repeats=50, min_unit_word_chars=100)
    v9 = "⊙ αα? → ⊚. ⊙ ααα? → ⊚. ⊙ αααα? → ⊚. ⊙ ααααα? → ⊚."
    for text in ("la femme, la femme, la femme", "αααααααα", v9):
        assert detect_loop(text) is not None and detect_loop(text, settings=loose) is None
    with pytest.raises(InputError) as refused:
        load_gate_config(_write(tmp_path, BUNDLED + ISSUE_LOOSE_LOOPS))
    for name in ("max_period", "chain_tokens", "char_run_repeats", "min_unit_word_chars"):
        assert f"[loops] {name} = " in str(refused.value)
    honest = BUNDLED.replace('name = "gloss-v2"', 'name = "mine"\ngloss_v2 = false') + ISSUE_LOOSE_LOOPS
    assert not load_gate_config(_write(tmp_path, honest))[0].gloss_v2


def test_weights_that_weight_out_twelve_categories_are_refused(tmp_path: Path) -> None:
    """Invariant 1: 'No category may be waived, weighted out, or skipped'. LX-A 0.88, the twelve others 0.01."""
    text = BUNDLED
    for category in GLOSS_V2_WEIGHTS:
        old = next(line for line in text.splitlines() if line.startswith(f'"{category}" = '))
        text = text.replace(old, f'"{category}" = {0.88 if category == "LX-A" else 0.01}')
    with pytest.raises(InputError) as refused:
        load_gate_config(_write(tmp_path, text))
    assert refused.value.field == "weights.LX-A" and "CATEGORY_WEIGHTS" in refused.value.message
    assert refused.value.line == next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith('"LX-A"'))


def _battery_lines() -> list[dict[str, object]]:
    return [json.loads(line) for line in bundled_battery_path().read_text(encoding="utf-8").splitlines()]


def _edited(tmp_path: Path, edit: dict[str, dict[str, object]], drop: set[str] = frozenset()) -> tuple[Path, int]:
    """The bundled battery with items edited (``None`` removes a key) or dropped; the first edited item's line."""
    rows, first = [], 0
    for obj in _battery_lines():
        if obj["id"] in drop:
            continue
        if obj["id"] in edit:
            for key, value in edit[obj["id"]].items():
                if value is None:
                    obj.pop(key, None)
                else:
                    obj[key] = value
            first = first or len(rows) + 1
        rows.append(obj)
    path = tmp_path / "battery.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path, first


STRUCTURE = {
    "LX-STOP capped at 256 with no stop window": (
        {"LX-STOP-01": {"max_tokens": 256, "stop_within": None}}, set(), "max_tokens",
        "LX-STOP: 'Hard token cap: 48 tokens'"),
    "LX-IDENTITY without its 32-token window": (
        {"LX-IDENTITY-03": {"within_tokens": None}}, set(), "within_tokens", "within first 32 tokens"),
    "LX-NEGATIVE human-input items untagged": (
        {"LX-NEGATIVE-03": {"tags": []}, "LX-NEGATIVE-04": {"tags": []}}, set(), "tags",
        "'LX-Z and LX-NEGATIVE human-input tests'"),
    "a new category under 10 items": (
        {}, {"LX-SEMANTIC-10"}, "category", "LX-SEMANTIC has 9 items"),
    "a wall judged as a contains item": (
        {"LX-Z-02": {"eval_type": "contains"}}, set(), "eval_type", "invariant 5"),
}


@pytest.mark.parametrize("name", list(STRUCTURE))
def test_a_battery_off_the_spec_structure_is_refused_under_gloss_v2(tmp_path: Path, name: str) -> None:
    edit, drop, field, clause = STRUCTURE[name]
    path, line = _edited(tmp_path, edit, drop)
    battery = load_battery(path)
    config, _ = load_gate_config()
    with pytest.raises(InputError) as refused:
        config.check_battery(battery)
    error = refused.value
    assert error.field == field and clause in str(error) and "gloss_v2 = false" in str(error)
    if line and field != "tags":  # an untagged wall cannot be pointed at: the count is the file's
        assert error.line == line and f"{path}:{line}:" in str(error)
    honest = BUNDLED.replace('name = "gloss-v2"', 'name = "mine"\ngloss_v2 = false')
    honest_config, _ = load_gate_config(_write(tmp_path, honest))
    honest_config.check_battery(battery)  # the same battery, run honestly: accepted


def test_the_bundled_battery_has_the_spec_structure() -> None:
    config, _ = load_gate_config()
    config.check_battery(load_battery(bundled_battery_path()))
