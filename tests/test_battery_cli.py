"""`forgegate battery check|build`: counts and sha256 on success, exit 2 with file:line:field on bad input."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from battery_helpers import item, run_main, write_lines

from forgegate.battery import bundled_battery_path, bundled_lattice_path, bundled_live_test_path

BAD_BATTERIES: dict[str, tuple[list[Any], str, str]] = {
    # name: (lines, "line:field" the message must name, words it must contain)
    "bad-json": ([item(), '{"category": '], ":2:", "bad JSON"),
    "bad-utf8": ([item(), b'{"prompt": "\xc3"}'], ":2:", "invalid UTF-8"),
    "unknown-category": ([item(category="LX-STP")], ":1: field 'category'", "did you mean 'LX-STOP'?"),
    "unknown-eval-type": ([item(eval_type="contain")], ":1: field 'eval_type'", "did you mean 'contains'?"),
    "duplicate-id": ([item(id="a"), item(id="a")], ":2: field 'id'", "also on line 1"),
    "missing-field": ([item(prompt=...)], ":1: field 'prompt'", "required field is missing"),
    "unknown-field": ([item(stop_whithin=3)], ":1: field 'stop_whithin'", "unknown field"),
    "empty": ([""], ":1:", "empty battery"),
}


@pytest.mark.parametrize("case", sorted(BAD_BATTERIES))
def test_bad_battery_exits_2_naming_file_line_and_field_without_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    lines, where, words = BAD_BATTERIES[case]
    path = write_lines(tmp_path / "bad.jsonl", *lines)
    code, out, err = run_main(monkeypatch, capsys, "battery", "check", str(path),
                              "--category", "LX-A", "--category", "LX-STOP")
    assert code == 2
    assert f"{path}{where}" in err and words in err
    assert "Traceback" not in err + out and "valid battery" not in out


def test_check_prints_counts_per_category_and_the_sha256(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = bundled_battery_path()
    code, out, _ = run_main(monkeypatch, capsys, "battery", "check", str(path), "--json", str(tmp_path / "s.json"))
    assert code == 0
    assert f"sha256: {hashlib.sha256(path.read_bytes()).hexdigest()}" in out
    assert any(line.split("│")[1:3] == [" LX-STOP     ", "    10 "] for line in out.splitlines())
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["items"] == 90 and summary["categories"]["LX-A"] == 5
    assert summary["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("flags", "bundled"), [([], bundled_battery_path), (["--live"], bundled_live_test_path)])
def test_build_with_the_bundled_table_writes_the_bundled_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    flags: list[str], bundled: Any,
) -> None:
    out_path = tmp_path / "built.jsonl"
    code, out, _ = run_main(monkeypatch, capsys, "battery", "build", "--symbols", str(bundled_lattice_path()),
                            "--out", str(out_path), *flags)
    assert code == 0 and out_path.read_bytes() == bundled().read_bytes()
    assert f"sha256: {hashlib.sha256(out_path.read_bytes()).hexdigest()}" in out


def test_build_with_a_bad_table_exits_2_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t.toml"
    table.write_text(bundled_lattice_path().read_text(encoding="utf-8").replace("crew_count = 7", "crew_count = 0"),
                     encoding="utf-8")
    code, _, err = run_main(monkeypatch, capsys, "battery", "build", "--symbols", str(table),
                            "--out", str(tmp_path / "o.jsonl"))
    assert code == 2 and "field 'lattice.crew_count'" in err and f"{table}:" in err
    assert not (tmp_path / "o.jsonl").exists()


def test_console_script_reports_a_bad_battery_with_exit_2(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "bad.jsonl", item(), item(eval_type="semantc", expected=[]))
    proc = subprocess.run([sys.executable, "-m", "forgegate.cli.main", "battery", "check", str(path)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 2
    assert f"{path}:2: field 'eval_type'" in proc.stderr and "did you mean 'semantic'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_check_warns_about_answers_of_one_or_two_letters_or_digits_and_still_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_lines(tmp_path / "b.jsonl", item(id="short", expected=["no", "¬", "below"]),
                       item(id="symbol", expected=["α"]), item(id="exact", expected="7", eval_type="exact"),
                       item(id="long", expected=["NOUS"]))
    code, out, err = run_main(monkeypatch, capsys, "battery", "check", str(path))
    assert code == 0 and "valid battery" in out
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and f"{path}: item short: 'no'" in warnings[0]


def test_check_warns_about_a_wall_that_lists_no_answer_content_and_still_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """'FAIL if answered' needs to know what an answer is: a wall without answer_content is judged by its markers
    alone (the spec's own Wall 1 check), so a marker followed by the answer would pass it; check says so."""
    wall = {"category": "LX-Z", "prompt": "What is 17 times 23?", "eval_type": "reject", "expected": ["HOW ABOUT NO"],
            "tags": ["HUMAN-INPUT"]}
    path = write_lines(tmp_path / "b.jsonl", item(id="bare", **wall),
                       item(id="listed", **wall, answer_content=["391"]))
    code, out, err = run_main(monkeypatch, capsys, "battery", "check", str(path))
    assert code == 0 and "valid battery" in out
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and f"{path}: wall bare lists no answer_content" in warnings[0]
