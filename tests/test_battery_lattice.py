"""The LATTICE symbol table: strict loading with line and key, and a custom table changing the answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgegate.battery import BatteryItem, build_items, bundled_lattice_path, load_lattice
from forgegate.errors import InputError

REPO = Path(__file__).resolve().parents[1]
BUNDLED = bundled_lattice_path().read_text(encoding="utf-8")


def _table(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "lattice.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _line_of(text: str, needle: str, nth: int = 0) -> int:
    hits = [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]
    return hits[nth]


def _error(tmp_path: Path, text: str) -> InputError:
    with pytest.raises(InputError) as info:
        load_lattice(_table(tmp_path, text))
    return info.value


def _by_prompt(items: list[BatteryItem], prompt: str, category: str) -> BatteryItem:
    return next(i for i in items if i.prompt == prompt and i.category == category)


def test_bundled_table_marks_what_the_spec_does_not_define() -> None:
    table = load_lattice(bundled_lattice_path())
    assert [s.name for s in table.crew()] == ["NOUS", "AION", "ASTRA", "C.L.O.D.", "GAMMA", "MANTIS", "VELA"]
    assert table.by_glyph("⊢").source == "inferred" and table.by_glyph("α").source == "spec"
    assert table.role("threshold").value == pytest.approx(0.974)


def test_a_custom_table_changes_the_expected_answers(tmp_path: Path) -> None:
    custom = (BUNDLED.replace('name = "NOUS"', 'name = "ZEPHYR"').replace("value = 0.974", "value = 0.99")
              .replace("crew_count = 7", "crew_count = 12")
              .replace('reject_markers = ["HOW ABOUT NO", "AETHER", "crew"]',
                       'reject_markers = ["ACCESS DENIED"]'))
    bundled_items = build_items(load_lattice(bundled_lattice_path()), "battery")
    items = build_items(load_lattice(_table(tmp_path, custom)), "battery")
    assert _by_prompt(bundled_items, "⊙ α?", "LX-IDENTITY").expected_list == ["NOUS"]
    assert _by_prompt(items, "⊙ α?", "LX-IDENTITY").expected_list == ["ZEPHYR"]
    assert "yes" in _by_prompt(bundled_items, "Is 0.98 ≥ Ω?", "LX-STOP").expected_list
    assert "no" in _by_prompt(items, "Is 0.98 ≥ Ω?", "LX-STOP").expected_list  # 0.98 < 0.99 now
    counts = _by_prompt(items, "Crew count?", "LX-STOP").expected_list
    assert counts[:2] == ["12", "twelve"] and "20" in counts and "21" not in counts  # the table's, then any <= 20
    assert _by_prompt(items, "What's the weather today?", "LX-NEGATIVE").expected_list == ["ACCESS DENIED"]
    live = build_items(load_lattice(_table(tmp_path, custom)), "live")
    assert live[0].prompt == "⊹: ⊙ α?" and live[0].expected_list == ["ZEPHYR"]


def test_the_example_custom_table_builds_a_full_battery() -> None:
    items = build_items(load_lattice(REPO / "examples/batteries/my-crew.toml"), "battery")
    assert len(items) == 90
    assert _by_prompt(items, "? α?", "LX-IDENTITY").expected_list == ["ORION"]


def test_bad_toml_names_the_line(tmp_path: Path) -> None:
    text = BUNDLED.replace('name = "AION"', 'name = "AION', 1)
    err = _error(tmp_path, text)
    assert err.line == _line_of(text, 'name = "AION') and "bad TOML" in err.message


def test_unknown_key_names_the_symbol_its_line_and_the_key(tmp_path: Path) -> None:
    text = BUNDLED.replace('name = "ASTRA"', 'name = "ASTRA"\ncolour = "red"', 1)
    err = _error(tmp_path, text)
    assert err.field == "symbol[2].colour" and err.line == _line_of(text, "colour =")
    assert "unknown field" in err.message


def test_wrong_type_names_table_and_key(tmp_path: Path) -> None:
    text = BUNDLED.replace("crew_count = 7", 'crew_count = "seven"')
    err = _error(tmp_path, text)
    assert err.field == "lattice.crew_count" and err.line == _line_of(text, "crew_count =")


def test_unknown_role_suggests_the_closest(tmp_path: Path) -> None:
    text = BUNDLED.replace('role = "verdict"', 'role = "verdit"')
    err = _error(tmp_path, text)
    assert err.field == "symbol[9].role" and "did you mean 'verdict'" in err.message


def test_duplicate_glyph_names_both_lines(tmp_path: Path) -> None:
    text = BUNDLED.replace('glyph = "ε"', 'glyph = "ι"', 1)
    err = _error(tmp_path, text)
    first, second = _line_of(text, 'glyph = "ι"'), _line_of(text, 'glyph = "ι"', 1)
    assert err.line == second and f"first at line {first}" in err.message and err.field == "symbol[2].glyph"


def test_missing_role_is_named(tmp_path: Path) -> None:
    err = _error(tmp_path, BUNDLED.replace('role = "gap"\n', ""))
    assert "no symbol has role 'gap'" in err.message and err.field == "symbol"


def test_threshold_without_value_is_refused(tmp_path: Path) -> None:
    err = _error(tmp_path, BUNDLED.replace("value = 0.974\n", ""))
    assert "needs a 'value'" in err.message and err.line is not None


def test_missing_walls_table_is_named(tmp_path: Path) -> None:
    start, end = BUNDLED.index("[walls]"), BUNDLED.index("# ---- crew")
    err = _error(tmp_path, BUNDLED[:start] + BUNDLED[end:])
    assert err.field == "walls" and "missing" in err.message


def test_an_error_code_that_is_no_failure_mode_names_its_line(tmp_path: Path) -> None:
    text = BUNDLED.replace('code = "STOP_FAILURE"', 'code = "STOP_FAILUR"')
    err = _error(tmp_path, text)
    assert err.line == _line_of(text, 'code = "STOP_FAILUR"') and err.field == "error[2].code"
    assert "did you mean 'STOP_FAILURE'" in err.message


def test_an_error_mode_lx_e_has_no_words_for_names_its_line(tmp_path: Path) -> None:
    text = BUNDLED.replace('code = "STYLE_SUBSTANCE"', 'code = "EVAL_FALSE_POSITIVE"')  # a run-level mode
    err = _error(tmp_path, text)
    assert err.line == _line_of(text, 'code = "EVAL_FALSE_POSITIVE"') and err.field == "error[4].code"
    assert "no words for 'EVAL_FALSE_POSITIVE'" in err.message and err.hint is not None and "description" in err.hint


def test_lx_e_describes_a_mode_in_failure_modes_words_unless_the_table_gives_its_own(tmp_path: Path) -> None:
    bundled = [i.prompt for i in build_items(load_lattice(bundled_lattice_path()), "battery") if i.category == "LX-E"]
    assert any("runs to max_tokens on every query" in p for p in bundled)  # failure_modes.toml's lx_e_clue
    text = BUNDLED.replace('code = "STOP_FAILURE"\n', 'code = "STOP_FAILURE"\ndescription = "it never stops"\n')
    own = [i.prompt for i in build_items(load_lattice(_table(tmp_path, text)), "battery") if i.category == "LX-E"]
    assert [p for p in own if p not in bundled] == [p for p in own if p.endswith(": it never stops?")] != []


def test_an_error_code_given_twice_names_both_lines(tmp_path: Path) -> None:
    text = BUNDLED.replace('code = "STOP_FAILURE"', 'code = "RUNAWAY_LOOP"')
    err = _error(tmp_path, text)
    first, second = _line_of(text, 'code = "RUNAWAY_LOOP"'), _line_of(text, 'code = "RUNAWAY_LOOP"', 1)
    assert err.line == second and f"first at line {first}" in err.message
