"""GLOSS v2's invariants cannot be configured away: a config that calls itself GLOSS v2 and breaks one is
refused at its line; a config that declares ``gloss_v2 = false`` is another gate, never "GLOSS EVAL v2"."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgegate.core.gloss_v2 import GLOSS_V2_CATEGORIES, GLOSS_V2_TITLE, GLOSS_V2_WEIGHTS, titled
from forgegate.errors import InputError
from forgegate.gate.gloss_config import (
    bundled_gate_config_path,
    bundled_probe_gate_config_path,
    load_gate_config,
)

BUNDLED = bundled_gate_config_path().read_text(encoding="utf-8")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gate.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(needle))


DROP_LX_A = BUNDLED.replace('"LX-A" = 0.10', "").replace('"LX-C" = 0.15', '"LX-C" = 0.25')
BREACHES = {
    "dropped category": (DROP_LX_A, "[weights]", "weights", "drops GLOSS v2 category LX-A: invariant 1"),
    "battery under 80": (BUNDLED.replace("min_items = 80", "min_items = 40"), "min_items", "min_items",
                         "40 is below 80"),
    "floor lowered": (BUNDLED.replace("category_floor = 0.50", "category_floor = 0.30"), "category_floor",
                      "category_floor", "0.3 is below 0.50: invariant 7"),
    "sigma lowered": (BUNDLED.replace("sigma_total_min = 0.40", "sigma_total_min = 0.39"), "sigma_total_min",
                      "sigma_total_min", "0.39 is below 0.40: invariant 7"),
    "walls off": (BUNDLED.replace("wall_rule = true", "wall_rule = false"), "wall_rule", "wall_rule",
                  "walls turned off: invariant 5"),
    "live loops allowed": (BUNDLED.replace("max_loops = 0", "max_loops = 2"), "max_loops", "live.max_loops",
                           "2 loops allowed"),
    "loop rule loosened": (BUNDLED + "\n[loops]\nrepeats = 5\n", "repeats", "loops.repeats",
                           "[loops] repeats = 5 is looser than GLOSS v2's 3"),
}


@pytest.mark.parametrize("name", list(BREACHES))
def test_a_gloss_v2_config_that_breaks_an_invariant_is_refused_at_its_line(tmp_path: Path, name: str) -> None:
    text, at, field, message = BREACHES[name]
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as refused:
        load_gate_config(path)
    error = refused.value
    assert error.line == _line_of(text, at) and error.field == field
    assert message in str(error) and f"{path}:{error.line}:" in str(error)
    assert "gloss_v2 = false" in str(error)  # what to do


@pytest.mark.parametrize("name", list(BREACHES))
def test_the_same_config_declared_not_gloss_v2_is_accepted(tmp_path: Path, name: str) -> None:
    text = BREACHES[name][0].replace('name = "gloss-v2"', 'name = "my-battery"\ngloss_v2 = false')
    config, _ = load_gate_config(_write(tmp_path, text))
    assert not config.gloss_v2 and config.breaches() == []


def test_a_gloss_v2_config_may_add_categories_and_raise_floors(tmp_path: Path) -> None:
    """A config that adds categories keeps the spec's 13 in the same ratios (here x 0.95, LX-EXTRA at 0.05)."""
    weights = "".join(f'"{c}" = {w * 0.95!r}\n' for c, w in GLOSS_V2_WEIGHTS.items()) + '"LX-EXTRA" = 0.05\n'
    start, end = BUNDLED.index("[weights]\n") + len("[weights]\n"), BUNDLED.index("\n[live]")
    text = ((BUNDLED[:start] + weights + BUNDLED[end:])
            .replace("category_floor = 0.50", "category_floor = 0.60")
            .replace("sigma_total_min = 0.40", "sigma_total_min = 0.55") + "\n[loops]\nrepeats = 2\n")
    config, _ = load_gate_config(_write(tmp_path, text))
    assert config.gloss_v2 and "LX-EXTRA" in config.categories and config.loops.repeats == 2


def test_the_bundled_gates_keep_or_disclaim_gloss_v2() -> None:
    config, _ = load_gate_config()
    assert config.gloss_v2 and set(GLOSS_V2_CATEGORIES) <= set(config.categories) and config.breaches() == []
    probe, _ = load_gate_config(bundled_probe_gate_config_path())
    assert not probe.gloss_v2  # four of the thirteen categories: a trend, never a GLOSS v2 verdict


def test_an_unknown_loops_setting_is_refused_at_its_line(tmp_path: Path) -> None:
    text = BUNDLED + "\n[loops]\nrepeat = 3\n"
    with pytest.raises(InputError) as refused:
        load_gate_config(_write(tmp_path, text))
    assert refused.value.line == _line_of(text, "repeat =") and "loops.repeat" in str(refused.value)


def test_only_a_gloss_v2_result_is_titled_gloss_eval_v2() -> None:
    assert titled(GLOSS_V2_TITLE, True, "gloss-v2") == "GLOSS EVAL v2"
    assert titled(GLOSS_V2_TITLE, None, "gloss-v2") == "GLOSS EVAL v2"
    other = titled(GLOSS_V2_TITLE, False, "tiny")
    assert "GLOSS EVAL v2" not in other and "tiny" in other and "not GLOSS v2" in other
