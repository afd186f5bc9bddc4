"""`forgegate audit ...`: exit codes 0 / 1 / 2 / 4, printed controls and the --json file."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from audit_helpers import RENAME_MAP, build_leak_fixture

from forgegate.battery import bundled_battery_path
from forgegate.cli.main import main
from forgegate.results import parse_result
from forgegate.results.audit import LeakAuditResult


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["forgegate", *args])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture(scope="module")
def leak(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_leak_fixture(tmp_path_factory.mktemp("cli-leak"))


def leak_args(f: dict[str, Path], out: Path) -> list[str]:
    return ["audit", "leak", "--source", str(f["source"]), "--renamed", str(f["renamed"]),
            "--pairs", str(f["pairs"]), "--map", str(f["map"]), "--json", str(out)]


def test_leak_exits_1_prints_controls_and_writes_the_json(leak: dict[str, Path], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run_cli(leak_args(leak, tmp_path / "leak.json"), capsys, monkeypatch)
    assert code == 1
    assert "names (pairs naming each): Elizabeth x2, Darcy x1, Heathcliff x1, Jane x1, Lizzy x1" in out
    assert "[ok] surfaces_found: 12/12" in out and "[ok] planted_detected: 6/6" in out
    assert "kept by the rename, not counted: Meryton" in out
    payload = json.loads((tmp_path / "leak.json").read_text(encoding="utf-8"))
    assert (payload["kind"], payload["schema_version"], payload["gate"], payload["finding"]) == ("leak_audit", 1,
                                                                                                  "FAIL", "LEAK")
    assert set(payload) == {"kind", "schema_version", "gate", "reasons", "finding", "splits", "controls",
                            "pairs_sha256"}  # issue 36: a plan ties its fixture's pairs file to the audit by these
    assert payload["pairs_sha256"] == {str(leak["pairs"]): hashlib.sha256(leak["pairs"].read_bytes()).hexdigest()}
    assert "gate: FAIL (finding: LEAK)" in out
    assert LeakAuditResult.model_validate(payload) == parse_result(payload)


def test_leak_with_a_failed_control_exits_4(leak: dict[str, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    bad_map = tmp_path / "map.json"
    bad_map.write_text(json.dumps({**RENAME_MAP, "Wickham": "Penrose"}), encoding="utf-8")
    args = leak_args(leak, tmp_path / "leak.json")
    args[args.index("--map") + 1] = str(bad_map)
    code, out = run_cli(args, capsys, monkeypatch)
    assert code == 4
    assert "[FAILED] surfaces_found: 12/13" in out and "missing: Wickham" in out
    payload = json.loads((tmp_path / "leak.json").read_text(encoding="utf-8"))
    assert payload["gate"] == "INVALID"
    assert payload["reasons"][0] == {"rule": "control surfaces_found", "outcome": "INVALID",
                                     "detail": "12/13 surfaces found in the unrenamed source; missing: Wickham"}


def test_leak_missing_directory_exits_2_with_the_path(leak: dict[str, Path], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    args = leak_args(leak, tmp_path / "leak.json")
    args[args.index("--source") + 1] = str(tmp_path / "missing")
    code, out = run_cli(args, capsys, monkeypatch)
    assert code == 2
    assert "missing: directory not found" in out


def test_loops_clean_exits_0_and_looping_exits_1_with_a_clean_copy(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"prompt": "⊙ α?", "completion": "α = NOUS"}\n', encoding="utf-8")
    code, out = run_cli(["audit", "loops", str(corpus)], capsys, monkeypatch)
    assert code == 0 and "gate: PASS (finding: CLEAN)" in out
    with corpus.open("a", encoding="utf-8") as handle:
        handle.write('{"prompt": "⊙ α?", "completion": "⊙ α? → αα. ⊙ αα? → ααα."}\n')
    code, out = run_cli(["audit", "loops", str(corpus), "--write-clean", str(tmp_path / "clean.jsonl"),
                         "--json", str(tmp_path / "loops.json")], capsys, monkeypatch)
    assert code == 1
    assert "line 2: increment" in out and "dropped 1 flagged rows, kept 1" in out
    payload = json.loads((tmp_path / "loops.json").read_text(encoding="utf-8"))
    assert payload["patterns"]["increment"] == 1
    assert (payload["kind"], payload["gate"], payload["finding"]) == ("loop_audit", "FAIL", "LOOPS")
    assert (tmp_path / "clean.jsonl").read_text(encoding="utf-8").count("\n") == 1


def test_loops_broken_line_exits_2_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"prompt": "a", "completion": "b"}\n{"prompt": "a"\n', encoding="utf-8")
    code, out = run_cli(["audit", "loops", str(corpus)], capsys, monkeypatch)
    assert code == 2
    assert f"{corpus}:2" in out


def test_format_and_contamination_against_the_bundled_battery(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"prompt": f"⊹: ⊙ {s}?", "completion": f"{s} = X"}, ensure_ascii=False)
                              + "\n" for s in "αιεκ"), encoding="utf-8")
    battery = str(bundled_battery_path())
    code, out = run_cli(["audit", "format", "--battery", battery, "--corpus", str(corpus),
                         "--json", str(tmp_path / "f.json")], capsys, monkeypatch)
    assert code == 1
    assert "template" in out and "[ok] mismatch_detected: 4/4" in out
    payload = json.loads((tmp_path / "f.json").read_text(encoding="utf-8"))
    assert payload["features"]["template"] == 90
    assert (payload["kind"], payload["gate"], payload["finding"]) == ("format_audit", "FAIL", "MISMATCH")
    code, out = run_cli(["audit", "contamination", "--battery", battery, "--corpus", str(corpus),
                         "--json", str(tmp_path / "c.json")], capsys, monkeypatch)
    assert code == 1
    payload = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert payload["controls"] == {"planted_found": [3, 3], "clean_corpus_hits": 0}
    assert (payload["kind"], payload["gate"], payload["finding"]) == ("contamination_audit", "FAIL", "CONTAMINATED")
    assert parse_result(payload).kind == "contamination_audit"
    assert {h["id"] for h in payload["hits"]} >= {"LX-IDENTITY-01", "LX-NEGATIVE-01"}
