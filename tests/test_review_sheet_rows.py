"""The Q_task review sheet is one of the human sheets (issue 38): one row per row id, a score is a number (not
``true`` or ``"1"``), and an answer edited on the sheet is refused against the sha256 its key holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_quality_guardrails import HUMAN, PROMPTS, SETTINGS, gens, plan

from forgegate.errors import InputError
from forgegate.metrics.generations import Generation
from forgegate.pipeline.plan.quality_scoring import score_quality, write_review_sheets
from forgegate.plan import LoadedPlan


def written(tmp_path: Path) -> tuple[Path, list[dict[str, object]], LoadedPlan, list[Generation]]:
    loaded = plan(HUMAN, tmp_path)
    rows = gens("colour", {"A": ["Red", "blue"], "B": ["Red", "x"], "R": ["x", "y"]}) + gens(
        "sum", {"A": ["1234", "1234"], "B": ["1234", "1234"], "R": ["1", "1234"]})
    [sheet] = write_review_sheets(loaded, rows, PROMPTS, tmp_path / "out", seed=7)
    lines = [{**json.loads(x), "score": 1.0} for x in sheet.read_text().splitlines()]
    return sheet, lines, loaded, rows


def save(sheet: Path, lines: list[dict[str, object]]) -> None:
    sheet.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def test_a_review_row_given_twice_is_refused_naming_both_lines(tmp_path: Path) -> None:
    sheet, lines, loaded, rows = written(tmp_path)
    save(sheet, [*lines, {**lines[0], "score": 0.0}])
    with pytest.raises(InputError, match=r"is on line 1 and again on line 7 with different score") as caught:
        score_quality(loaded, rows, PROMPTS, tmp_path / "out", SETTINGS)
    assert caught.value.line == 7
    save(sheet, lines)
    done = score_quality(loaded, rows, PROMPTS, tmp_path / "out", SETTINGS)
    assert done is not None and done["Q_task"]["missing"] == []


@pytest.mark.parametrize("score", [True, "1", "1.0"])
def test_a_score_that_is_not_a_number_is_refused_at_its_line(tmp_path: Path, score: object) -> None:
    sheet, lines, loaded, rows = written(tmp_path)
    lines[3]["score"] = score
    save(sheet, lines)
    with pytest.raises(InputError) as caught:
        score_quality(loaded, rows, PROMPTS, tmp_path / "out", SETTINGS)
    assert caught.value.line == 4 and "score" in str(caught.value)


def test_an_answer_edited_on_the_sheet_is_refused(tmp_path: Path) -> None:
    sheet, lines, loaded, rows = written(tmp_path)
    lines[2]["answer"] = "Red (the reviewer's better answer)"
    save(sheet, lines)
    with pytest.raises(InputError, match="answer is not the one the review sheet was written with"):
        score_quality(loaded, rows, PROMPTS, tmp_path / "out", SETTINGS)
