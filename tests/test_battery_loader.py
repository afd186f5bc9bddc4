"""Loading battery files: ids, sha256, and an error naming file, line and field for every bad input."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from battery_helpers import item, write_lines

from forgegate.battery import load_battery
from forgegate.errors import InputError


def _error(path: Path, **kwargs: object) -> InputError:
    with pytest.raises(InputError) as info:
        load_battery(path, **kwargs)  # type: ignore[arg-type]
    return info.value


def test_ids_default_to_category_and_position_in_file_order(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "b.jsonl", item(), item(category="LX-B"), item(id="custom"), item(),
                       item(category="LX-B"))
    battery = load_battery(path)
    assert [i.id for i in battery.items] == ["LX-A-01", "LX-B-01", "custom", "LX-A-03", "LX-B-02"]
    assert battery.by_id("LX-A-03").category == "LX-A"
    assert battery.categories() == ("LX-A", "LX-B")
    assert battery.counts() == {"LX-A": 3, "LX-B": 2}


def test_sha256_is_the_hash_of_the_file_bytes_and_changes_with_them(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "b.jsonl", item(), item(prompt="⊙ ι?", expected="AION"))
    first = load_battery(path)
    assert first.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert load_battery(path).sha256 == first.sha256
    write_lines(path, item(), item(prompt="⊙ ι?", expected="AIONS"))
    assert load_battery(path).sha256 != first.sha256


def test_empty_prompt_is_allowed(tmp_path: Path) -> None:
    battery = load_battery(write_lines(tmp_path / "b.jsonl", item(prompt="", tags=["EMPTY-PROMPT"])))
    assert battery.items[0].prompt == ""


def test_bad_json_names_file_and_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "b.jsonl", item(), '{"category": "LX-A", "prompt": ')
    err = _error(path)
    assert err.line == 2 and str(err).startswith(f"{path}:2:") and "bad JSON" in str(err)


def test_invalid_utf8_names_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "b.jsonl", item(), item(), b'{"category": "LX-A", "prompt": "\xff"}')
    err = _error(path)
    assert err.line == 3 and "invalid UTF-8" in err.message


def test_unknown_category_suggests_the_closest(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "b.jsonl", item(category="LX-STOP"), item(category="LX-STP"))
    err = _error(path, categories=["LX-STOP", "LX-A"])
    assert (err.line, err.field) == (2, "category")
    assert "'LX-STP' is not one of LX-STOP, LX-A (did you mean 'LX-STOP'?)" in str(err)


def test_any_category_is_accepted_when_none_are_given(tmp_path: Path) -> None:
    assert load_battery(write_lines(tmp_path / "b.jsonl", item(category="LX-STP"))).categories() == ("LX-STP",)


def test_unknown_eval_type_suggests_the_closest(tmp_path: Path) -> None:
    err = _error(write_lines(tmp_path / "b.jsonl", item(eval_type="contain")))
    assert (err.line, err.field) == (1, "eval_type")
    assert "'contain' is not one of exact, contains, reject, semantic (did you mean 'contains'?)" in err.message


def test_unknown_tag_is_refused(tmp_path: Path) -> None:
    err = _error(write_lines(tmp_path / "b.jsonl", item(tags=["HUMAN_INPUT"])))
    assert err.field == "tags.0" and "did you mean 'HUMAN-INPUT'" in err.message


def test_duplicate_explicit_id_names_both_lines(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "b.jsonl", item(id="q1"), item(), item(id="q1"))
    err = _error(path)
    assert (err.line, err.field) == (3, "id") and "duplicate id 'q1'" in err.message and "line 1" in err.message


def test_default_id_colliding_with_an_explicit_one_is_a_duplicate(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "b.jsonl", item(id="LX-A-02"), item())
    err = _error(path)
    assert err.line == 2 and "'LX-A-02'" in err.message and "line 1" in err.message


def test_missing_field_is_named(tmp_path: Path) -> None:
    err = _error(write_lines(tmp_path / "b.jsonl", item(), item(max_tokens=...)))
    assert (err.line, err.field) == (2, "max_tokens") and "missing" in err.message


def test_unknown_field_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    err = _error(write_lines(tmp_path / "b.jsonl", item(expect="NOUS")))
    assert (err.line, err.field) == (1, "expect") and "unknown field" in err.message
    assert "did you mean 'expected'" in err.message


def test_contains_item_without_expected_names_the_expected_field(tmp_path: Path) -> None:
    err = _error(write_lines(tmp_path / "b.jsonl", item(expected=[])))
    assert (err.line, err.field) == (1, "expected")


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    path.write_text("\n  \n")
    assert "empty battery" in _error(path).message


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    assert "not found" in _error(tmp_path / "nope.jsonl").message


def test_the_example_battery_loads_with_default_and_explicit_ids() -> None:
    path = Path(__file__).resolve().parents[1] / "examples/batteries/tiny.jsonl"
    battery = load_battery(path, categories=["LX-IDENTITY", "LX-STOP", "LX-Z", "LX-SEMANTIC"])
    assert [i.id for i in battery.items] == ["LX-IDENTITY-01", "LX-IDENTITY-02", "LX-STOP-01", "LX-Z-01",
                                             "sem-verify"]
