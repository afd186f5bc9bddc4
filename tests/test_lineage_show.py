"""`forgegate lineage show`: one row a version, newest last, lowered categories marked."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from lineage_helpers import category, live, passes, result, run_cli
from rich.console import Console

from forgegate.lineage import decide_graduation, lineage_markdown, lineage_rows, lineage_table, read_lineage

LIVE_PASS: dict[str, Any] = live("PASS")


def _battery(lx_a: int, lx_b: int, battery_sha: str = "b" * 64) -> dict[str, Any]:
    return result(category("LX-A", passes(lx_a, 10 - lx_a)) + category("LX-B", passes(lx_b, 10 - lx_b)),
                  battery_sha=battery_sha)


def _three_versions(path: Path) -> None:
    for version, battery, note in (("v1", _battery(8, 6), "first | forge"),
                                   ("v2", _battery(9, 5), None),
                                   ("v3", _battery(7, 9, battery_sha="9" * 64), "battery v2.1")):
        decide_graduation(version, battery, LIVE_PASS, path, [], note, n_resamples=200)


def test_rows_mark_categories_that_went_down_vs_previous_comparable(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _three_versions(path)
    rows = lineage_rows(read_lineage(path))
    assert [r.record.version for r in rows] == ["v1", "v2", "v3"]
    assert rows[0].went_down == frozenset() and rows[0].comparability == "first record"
    assert rows[1].went_down == {"LX-B"} and rows[1].compared_with == "v1"
    # v3 ran on another battery: its lower LX-A is not a "went down", and the table says why.
    assert rows[2].went_down == frozenset() and rows[2].compared_with is None
    assert rows[2].comparability.startswith("not comparable")


def test_markdown_table_has_one_row_a_version_and_escapes_pipes(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _three_versions(path)
    lines = lineage_markdown(read_lineage(path)).splitlines()
    assert lines[0].startswith("| version | date (UTC) | verdict | graduated | σ_total | LX-A | LX-B |")
    assert len(lines) == 2 + 3 + 1 + 2  # header, three rows, a blank, one track record per battery (two)
    assert lines[-2].startswith("- battery ") and "followed by a live PASS" in lines[-2]
    assert "| v2 |" in lines[3] and "| 0.50 ↓ |" in lines[3] and "| 0.90 |" in lines[3]
    assert "first \\| forge" in lines[2]


def test_cli_lineage_show_refuses_a_partial_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 46: a damaged lineage is refused with file:line (exit 2), never shown as if whole."""
    path = tmp_path / "lineage.jsonl"
    _three_versions(path)
    path.write_bytes(path.read_bytes() + b'{"lineage_format": 1, "vers')
    code, out, err = run_cli(["lineage", "show", str(path), "--markdown"], capsys, monkeypatch)
    assert code == 2 and out == ""
    assert f"{path}:4: partial last line" in err.replace("\n", "")


def test_cli_lineage_show_terminal_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lineage.jsonl"
    _three_versions(path)
    code, out, _ = run_cli(["lineage", "show", str(path)], capsys, monkeypatch)
    assert code == 0 and "v3" in out and "↓" in out


def test_terminal_table_is_one_row_a_version_when_it_fits_else_one_column_a_version(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _three_versions(path)
    lineage = read_lineage(path)

    def render(width: int) -> str:
        console = Console(width=width, file=io.StringIO(), color_system=None)
        console.print(lineage_table(lineage, console))
        return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]

    wide, narrow = render(200), render(40)
    assert "one column a version" not in wide
    assert [line.split()[:3] for line in wide.splitlines() if line.strip()[:2] in ("v1", "v2", "v3")][:3] == [
        ["v1", "PASS", "yes"], ["v2", "PASS", "yes"], ["v3", "PASS", "yes"]]
    assert "one column a version" in narrow
    assert any(line.split()[:4] == ["LX-B", "0.60", "0.50↓", "0.90"] for line in narrow.splitlines())
