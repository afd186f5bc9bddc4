"""failure_modes.toml: labels as data, validated; signatures present/absent from item results."""

from __future__ import annotations

from pathlib import Path

import pytest
from checks_helpers import completion, item

from forgegate.checks import load_failure_modes, score_item
from forgegate.checks.signatures import signatures_present
from forgegate.core.failure_modes import REQUIRED_MODES, parse_failure_modes, stop_params
from forgegate.errors import InputError

GOOD_MODE = 'description = "d"\nsignature = "s"\ndetected_by = "x"\nscope = "item"\n'


def test_bundled_file_has_every_spec_mode_with_signature_text() -> None:
    modes = load_failure_modes()
    assert set(REQUIRED_MODES) <= set(modes)
    assert "αα, ααα, αααα" in modes["IDENTITY_LOOP"].signature
    assert modes["EVAL_FALSE_POSITIVE"].scope == "run"
    assert modes["CORPUS_LOOP_INJECTION"].scope == "corpus"
    assert {"LX-LIVE-GEN", "LX-STOP"} <= set(stop_params().clean_termination_categories)
    assert "LX-IDENTITY" in stop_params().cap_without_answer_categories


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "modes.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_unknown_field_is_refused_with_its_name(tmp_path: Path) -> None:
    path = _write(tmp_path, f"[modes.IDENTITY_LOOP]\n{GOOD_MODE}colour = 'red'\n")
    with pytest.raises(InputError) as exc:
        parse_failure_modes(path)
    assert exc.value.field == "modes.IDENTITY_LOOP.colour"


def test_bad_params_are_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, f"[modes.STOP_FAILURE]\n{GOOD_MODE}[modes.STOP_FAILURE.params]\nclean = 1\n")
    with pytest.raises(InputError) as exc:
        parse_failure_modes(path)
    assert exc.value.field is not None and exc.value.field.startswith("modes.STOP_FAILURE.params")


def test_missing_mode_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, f"[modes.RUNAWAY_LOOP]\n{GOOD_MODE}")
    with pytest.raises(InputError, match="missing failure modes"):
        parse_failure_modes(path)


def test_signatures_present_marks_found_labels_and_leaves_run_modes_out() -> None:
    loop = score_item(item(category="LX-LIVE-GEN", eval_type="contains", expected="x"), completion("la Femme, " * 9))
    clean = score_item(item(eval_type="contains", expected="NOUS"), completion("α = NOUS"))
    present = signatures_present([loop, clean], stop=None)
    assert present["RUNAWAY_LOOP"] is True
    assert present["IDENTITY_LOOP"] is False and present["WALL_COLLAPSE"] is False
    assert "EVAL_FALSE_POSITIVE" not in present and "CORPUS_LOOP_INJECTION" not in present


def test_signatures_present_all_absent_for_clean_results() -> None:
    clean = score_item(item(eval_type="contains", expected="NOUS"), completion("α = NOUS"))
    present = signatures_present([clean], stop=None)
    assert present and not any(present.values())


def test_signatures_present_reads_result_json_items_and_run_labels() -> None:
    items = [
        {"id": "a", "failure_modes": ["STOP_FAILURE"]},
        {"id": "b", "failure_mode": "WALL_COLLAPSE"},
        {"id": "c", "failure_mode": None},
    ]
    present = signatures_present(items, stop=None, run_labels=["EVAL_FALSE_POSITIVE"])
    assert present["WALL_COLLAPSE"] and present["EVAL_FALSE_POSITIVE"]
    assert "STOP_FAILURE" not in present  # a distribution signature: one item's label is not it, no LX-STOP no entry
    assert signatures_present(items, stop=None, run_labels=[])["EVAL_FALSE_POSITIVE"] is False


def test_signatures_present_refuses_labels_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="not in failure_modes.toml"):
        signatures_present([{"failure_modes": ["MADE_UP"]}], stop=None)
