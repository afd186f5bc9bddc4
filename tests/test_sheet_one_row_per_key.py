"""Every human sheet has one row per key (issue 38): a repeated row is refused with both lines, never counted twice
or silently overwritten, and "N of M labelled" counts the keys the sheet must cover, never its rows."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import run_cli
from test_semantic_recurrence import SETTINGS, fill
from test_semantic_separation import filled_validation, frozen_book

from forgegate.errors import InputError
from forgegate.jsonio import MAX_USER_FILE_BYTES
from forgegate.semantic.recurrence import score_recurrence
from forgegate.semantic.relevance import read_labels
from forgegate.semantic.sheet_reader import read_keyed_sheet
from forgegate.semantic.sheets import read_sheet


def rows_of(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    return table[0], table[1:]


def write_rows(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    buffer = io.StringIO(newline="")
    csv.writer(buffer, lineterminator="\r\n").writerows([header, *rows])
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


def validate(filled: Path, key: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
             ) -> tuple[int, str, dict[str, Any]]:
    out = filled.with_suffix(".json")
    code, stdout, stderr = run_cli(["semantic", "validate", "--sheet", str(filled), "--key", str(key), "--json",
                                    str(out), "--minimum", "0.5"], capsys, monkeypatch)
    return code, " ".join((stdout + stderr).split()), json.loads(out.read_text()) if out.exists() else {}


def test_a_validation_sheet_with_a_row_twice_and_one_never_labelled_is_refused_not_complete(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    filled, key = filled_validation(tmp_path)
    header, rows = rows_of(filled)
    assert len(rows) == 3
    twice = write_rows(tmp_path / "twice.csv", header, [rows[0], rows[1], rows[0]])  # row 3 never labelled
    code, out, result = validate(twice, key, capsys, monkeypatch)
    assert code == 2 and result == {}
    assert f"row {rows[0][0]!r} is on line 2 and again on line 4" in out and "twice.csv:4" in out
    conflicting = [*rows[0][:-1], str(1 - int(rows[0][-1]))]
    code, out, _ = validate(write_rows(tmp_path / "conflict.csv", header, [*rows, conflicting]), key, capsys,
                            monkeypatch)
    assert code == 2 and "with different same_meaning" in out
    copies = write_rows(tmp_path / "copies.csv", header, [*rows, *[rows[1]] * 30])  # the "40 of 10"
    code, out, _ = validate(copies, key, capsys, monkeypatch)
    assert code == 2 and "is on line 3 and again on line 5" in out


def test_a_validation_row_deleted_from_the_sheet_counts_as_unlabelled(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    filled, key = filled_validation(tmp_path)
    header, rows = rows_of(filled)
    code, _, result = validate(write_rows(tmp_path / "short.csv", header, rows[:2]), key, capsys, monkeypatch)
    assert code == 3 and result["gate"] == "INCOMPLETE" and result["complete"] is False
    assert result["labelled"] == 2 and result["pairs"] == 3 and result["unlabelled_rows"] == [rows[2][0]]


def test_e4_rows_appended_again_are_refused_so_the_rate_cannot_move(tmp_path: Path) -> None:
    filled, key = fill(tmp_path)
    honest = score_recurrence(filled, key, "S", "C", SETTINGS)
    assert honest["rates"]["S"]["n"] == 8
    header, rows = rows_of(filled)
    recurring = [r for r in rows if r[-1] == "1"]
    padded = write_rows(tmp_path / "padded.csv", header, rows + recurring * 10)
    with pytest.raises(InputError, match=r"is on line \d+ and again on line \d+") as caught:
        score_recurrence(padded, key, "S", "C", SETTINGS)
    assert caught.value.line == len(rows) + 2  # the first copy
    flipped = [*recurring[0][:-1], "0"]
    with pytest.raises(InputError, match="with different recurs"):
        score_recurrence(write_rows(tmp_path / "flip.csv", header, [*rows, flipped]), key, "S", "C", SETTINGS)
    short = score_recurrence(write_rows(tmp_path / "short.csv", header, rows[1:]), key, "S", "C", SETTINGS)
    assert short["complete"] is False and short["unlabelled_rows"] == [rows[0][0]] and short["rates"] is None


def relevance_file(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def test_a_relevance_sheet_names_both_lines_of_a_repeated_cluster_and_refuses_a_repeated_column(
        tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cluster 'c1' is on line 2 and again on line 4 with different relevant"):
        read_labels(relevance_file(tmp_path / "a.csv", "cluster,relevant\nc1,1\nc2,0\nc1,0\n"))
    with pytest.raises(InputError, match="column 'relevant' appears twice") as caught:
        read_labels(relevance_file(tmp_path / "b.csv", "cluster,relevant,relevant\nc1,1,0\n"))
    assert caught.value.line == 1
    with pytest.raises(InputError, match="invalid UTF-8") as caught:
        read_labels(relevance_file(tmp_path / "c.csv", b"cluster,relevant\nc1,1\nc\xff2,0\n"))
    assert caught.value.line == 3


def test_a_header_only_relevance_sheet_is_bad_input_not_a_crash(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    empty = relevance_file(tmp_path / "empty.csv", "cluster,relevant\n")
    code, out, err = run_cli(["semantic", "relevance", "--first", f"ana={empty}", "--second", f"bo={empty}",
                              "--author", "carol", "--out", str(tmp_path / "r.jsonl")], capsys, monkeypatch)
    assert code == 2 and "no cluster rows" in out + err


def test_a_device_or_an_oversized_file_is_refused_as_such_before_it_is_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a device, not a sheet file"):
        read_labels(Path("/dev/zero"))
    big = tmp_path / "big.csv"
    with big.open("wb") as handle:
        handle.write(b"cluster,relevant\n")
        handle.truncate(MAX_USER_FILE_BYTES + 1)
    with pytest.raises(InputError, match="larger than 64 MiB"):
        read_labels(big)


def test_relevance_sheets_that_omit_clusters_of_the_codebook_give_no_record_stamped_with_its_hash(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    book = frozen_book(tmp_path)
    clusters = sorted({c["id"] for t in json.loads(book.read_text())["tasks"].values() for c in t["clusters"]})
    assert len(clusters) >= 2
    some = relevance_file(tmp_path / "some.csv", "cluster,relevant\n" + "".join(f"{c},1\n" for c in clusters[1:]))
    out = tmp_path / "r.jsonl"
    args = ["semantic", "relevance", "--first", f"ana={some}", "--second", f"bo={some}", "--author", "carol",
            "--adjudicator", "carol", "--codebook", str(book), "--out", str(out)]
    code, stdout, stderr = run_cli(args, capsys, monkeypatch)
    assert code == 2 and f"leave out 1 of the codebook's {len(clusters)} clusters" in stdout + stderr
    assert not out.exists()
    foreign = relevance_file(tmp_path / "foreign.csv", "cluster,relevant\n" + "".join(f"{c},1\n" for c in clusters)
                             + "elsewhere:c9,0\n")
    args[2:6] = ["--first", f"ana={foreign}", "--second", f"bo={foreign}"]
    code, stdout, stderr = run_cli(args, capsys, monkeypatch)
    assert code == 2 and "'elsewhere:c9' is not in the codebook" in stdout + stderr and not out.exists()
    whole = relevance_file(tmp_path / "whole.csv", "cluster,relevant\n" + "".join(f"{c},1\n" for c in clusters))
    args[2:6] = ["--first", f"ana={whole}", "--second", f"bo={whole}"]
    code, stdout, stderr = run_cli(args, capsys, monkeypatch)
    assert code == 0, stdout + stderr
    assert out.exists()


def test_the_reader_keeps_the_original_text_and_a_blank_key_is_refused(tmp_path: Path) -> None:
    sheet = relevance_file(tmp_path / "s.csv", "cluster,relevant\n'=c1,1\n,0\n")
    with pytest.raises(InputError, match="a row with no cluster") as caught:
        read_keyed_sheet(sheet, ("cluster", "relevant"), "cluster")
    assert caught.value.line == 3
    ok = read_keyed_sheet(relevance_file(tmp_path / "t.csv", "cluster,relevant\n'=c1,1\n"), ("cluster",), "cluster")
    assert list(ok.rows) == ["=c1"] and ok.coverage(["=c1", "c2"], "relevant") == (["=c1"], ["c2"])
    assert read_sheet(tmp_path / "t.csv")[1] == [{"cluster": "=c1", "relevant": "1"}]
