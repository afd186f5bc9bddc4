"""The lineage file: append-only JSONL that survives a crash mid-append."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lineage_helpers import category, live, passes, result

from forgegate.errors import InputError
from forgegate.lineage import append_record, decide_graduation, read_lineage
from forgegate.results import LineageRecord

LIVE_PASS = live("PASS", run_id="live-1")


def _graduate(path: Path, version: str) -> None:
    battery = result(category("LX-A", passes(8, 2)), run_id=f"run-{version}")
    decide_graduation(version, battery, LIVE_PASS, path, [], None, n_resamples=200)


def test_records_append_one_line_each_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _graduate(path, "v1")
    _graduate(path, "v2")
    raw = path.read_bytes()
    assert raw.count(b"\n") == 2 and raw.endswith(b"\n")
    lineage = read_lineage(path)
    assert [r.version for _, r in lineage.records] == ["v1", "v2"]
    assert [line for line, _ in lineage.records] == [1, 2]
    assert lineage.problems == ()


def test_a_partial_last_line_is_refused_with_file_and_line(tmp_path: Path) -> None:
    """Issue 46: the interrupted append may be the record that decides the next graduation (EVAL_FALSE_POSITIVE):
    it is refused, naming the line, never skipped."""
    path = tmp_path / "lineage.jsonl"
    _graduate(path, "v1")
    _graduate(path, "v2")
    first_two = path.read_bytes()
    third = first_two.splitlines()[1].replace(b'"v2"', b'"v3"')
    path.write_bytes(first_two + third[: len(third) // 2])  # the crash: half a line, no newline
    with pytest.raises(InputError) as raised:
        read_lineage(path)
    assert str(raised.value).startswith(f"{path}:3: partial last line")
    with pytest.raises(InputError):  # and no decision is appended after it
        _graduate(path, "v4")
    assert path.read_bytes() == first_two + third[: len(third) // 2]


def test_a_damaged_line_in_the_middle_is_refused_never_read_past(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _graduate(path, "v1")
    path.write_bytes(path.read_bytes() + b'{"lineage_format": 1, "version": "v2", "da')
    append_record(path, read_lineage_unchecked(path))  # a low-level append still starts a new line
    lines = path.read_bytes().split(b"\n")
    assert lines[1] == b'{"lineage_format": 1, "version": "v2", "da'  # left as it was, not glued onto
    assert json.loads(lines[2])["version"] == "v1"
    with pytest.raises(InputError) as raised:
        read_lineage(path)
    assert str(raised.value).startswith(f"{path}:2: damaged line")


def test_a_lineage_whose_first_line_starts_with_a_bom_reads_every_record(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _graduate(path, "v1")
    _graduate(path, "v2")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # as a Windows editor saves it
    lineage = read_lineage(path)
    assert [r.version for _, r in lineage.records] == ["v1", "v2"] and lineage.problems == ()


def read_lineage_unchecked(path: Path) -> LineageRecord:
    """The first record of a file whose later lines may be damaged."""
    return LineageRecord.model_validate_json(path.read_bytes().split(b"\n")[0])


def test_append_returns_the_line_it_wrote(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _graduate(path, "v1")
    record = read_lineage(path).records[0][1]
    path.write_bytes(path.read_bytes() + b"{partial")
    assert append_record(path, record) == 3


def test_complete_last_record_without_newline_is_kept_and_noted(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _graduate(path, "v1")
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    lineage = read_lineage(path)
    assert [r.version for _, r in lineage.records] == ["v1"]
    assert "no trailing newline" in lineage.problems[0].message


def test_a_hand_edited_record_with_an_unknown_field_names_file_line_field(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _graduate(path, "v1")
    record = json.loads(path.read_text())
    record["notes"] = "typo of note"
    path.write_text(path.read_text() + json.dumps(record) + "\n")
    with pytest.raises(InputError) as raised:
        read_lineage(path)
    assert raised.value.line == 2 and raised.value.field == "notes"


def test_record_that_says_graduated_without_pass_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _graduate(path, "v1")
    record = json.loads(path.read_text())
    record["verdict"] = "FAIL"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(InputError, match="contradicts verdict FAIL"):
        read_lineage(path)


def test_missing_lineage_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        read_lineage(tmp_path / "nope.jsonl")
