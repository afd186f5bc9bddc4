"""The one UTF-8 reader every loader uses: file, line and byte offset of bad bytes; missing files and folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgegate.errors import InputError
from forgegate.jsonio import iter_jsonl_lines, read_text_or_input_error
from forgegate.metrics.texts import read_text
from forgegate.plan.load import load_plan


def test_invalid_utf8_names_the_file_the_line_and_the_byte_offset_of_the_first_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(b"one\ntwo\nth\xffree\n")
    with pytest.raises(InputError) as info:
        read_text_or_input_error(path)
    err = info.value
    assert err.line == 3 and "invalid UTF-8 at byte 10" in err.message
    assert str(err).startswith(f"{path}:3") and err.hint == "save the file as UTF-8"


def test_a_missing_file_and_a_folder_are_input_errors_naming_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="plan file not found") as missing:
        read_text_or_input_error(tmp_path / "nope.toml", what="plan file", hint="write one")
    assert missing.value.hint == "write one"
    with pytest.raises(InputError, match="is a directory, not a plan file"):
        read_text_or_input_error(tmp_path, what="plan file")


def test_callers_keep_their_own_wording(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="plan file not found") as info:
        load_plan(tmp_path / "plan.toml")
    assert "forgegate plan new" in (info.value.hint or "")


def test_a_byte_order_mark_is_dropped_by_the_one_reader_unless_the_caller_keeps_it(tmp_path: Path) -> None:
    """Issue 46: editors on Windows write a BOM; the one reader of user files drops it (a lineage line or a
    battery's first item that starts with one is read as written); a caller that refuses it itself keeps it."""
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfCall me Ishmael.\n")
    assert read_text(path, strip=False).text == "Call me Ishmael.\n"
    assert read_text_or_input_error(path) == "Call me Ishmael.\n"
    assert read_text_or_input_error(path, bom=False).startswith("\ufeff")


def test_jsonl_bad_utf8_is_reported_at_its_line_with_the_offset_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"b": "\xc3"}\n')
    with pytest.raises(InputError) as info:
        list(iter_jsonl_lines(path))
    assert info.value.line == 3 and "invalid UTF-8 at byte 17" in info.value.message
