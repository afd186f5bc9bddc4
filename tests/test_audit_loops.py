"""The corpus loop audit: the v9 patterns are flagged, clean rows are not, controls bite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from audit_helpers import gate_of

from forgegate.audit import AuditFinding, CorpusRow, read_corpus, run_loop_audit, with_clean_copy
from forgegate.audit import loops as loops_module
from forgegate.audit.loop_patterns import dominant_duplicates, echoes_prompt, escalation_chain
from forgegate.audit.synthetic import clean_corpus
from forgegate.checks.loops import LoopFinding
from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.pipeline.audits import audit_gate, loop_model


def audit_body(report: Any) -> dict[str, Any]:
    """The audit's JSON (its results model) without the verdict fields every audit result shares."""
    shared = {"gate", "reasons", "finding", "kind", "schema_version"}
    return {k: v for k, v in loop_model(report, audit_gate(report)).to_json().items() if k not in shared}

CLEAN_ROWS = [
    {"prompt": "⊙ α?", "completion": "α = NOUS"},
    {"prompt": "⊙ ι?", "completion": "ι = AION"},
    {"prompt": "What does ⊢ mean?", "completion": "⊢ marks an assertion: a command the crew must act on."},
    {"prompt": "Translate: coherence above threshold", "completion": "Φζ > Ω"},
    {"messages": [{"role": "system", "content": "You are GLOSS."}, {"role": "user", "content": "⊙ ε?"},
                  {"role": "assistant", "content": "ε = ASTRA"}]},
    {"prompt": "Name the chapters.", "completion": "Chapter I, Chapter II and Chapter III."},
]
LOOPING = [  # (row, pattern it must be flagged with)
    ({"prompt": "⊙ α?", "completion": "⊙ α? → αα. ⊙ αα? → ααα."}, "increment"),
    ({"prompt": "Status?", "completion": "I am here to help you. I am here to help you. I am here to help you."},
     "repeated_phrase"),
    ({"prompt": "Report the system status now.", "completion": "Report the system status now. All nominal."},
     "echo"),
]


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_clean_corpus_comes_back_clean(tmp_path: Path) -> None:
    report = run_loop_audit(read_corpus(write_jsonl(tmp_path / "c.jsonl", CLEAN_ROWS)), seed=0)
    assert report.finding is AuditFinding.CLEAN
    assert audit_body(report)["flagged_rows"] == 0
    assert audit_body(report)["controls"] == {"planted_found": [7, 7], "clean_corpus_flags": 0}


def test_each_loop_pattern_is_flagged_on_its_line(tmp_path: Path) -> None:
    rows = CLEAN_ROWS + [row for row, _ in LOOPING]
    report = run_loop_audit(read_corpus(write_jsonl(tmp_path / "c.jsonl", rows)), seed=0)
    assert report.finding is AuditFinding.LOOPS
    for offset, (_row, pattern) in enumerate(LOOPING):
        assert pattern in report.flagged[len(CLEAN_ROWS) + 1 + offset].patterns
    assert set(report.flagged) == {7, 8, 9}
    counts = audit_body(report)["patterns"]
    assert counts["increment"] == 1 and counts["repeated_phrase"] == 1
    assert counts["echo"] == 2  # the v9 row also starts by echoing "⊙ α?"


def test_near_duplicates_dominating_one_prompt_flag_all_but_the_first(tmp_path: Path) -> None:
    dup = [{"prompt": "⊙ κ?", "completion": f"κ = C.L.O.D.{'' if i % 2 else ' '}"} for i in range(4)]
    rows = CLEAN_ROWS + dup + [{"prompt": "⊙ κ?", "completion": "κ is CLOD, the crew's logistics officer"}]
    report = run_loop_audit(read_corpus(write_jsonl(tmp_path / "c.jsonl", rows)), seed=0)
    assert sorted(report.flagged) == [8, 9, 10]
    assert audit_body(report)["patterns"]["dominant_duplicates"] == 3


def test_write_clean_drops_flagged_lines_and_says_how_many(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "c.jsonl", CLEAN_ROWS + [row for row, _ in LOOPING])
    audited = run_loop_audit(read_corpus(source), seed=0)
    report = with_clean_copy(audited, source, tmp_path / "clean.jsonl", gate_of(audited))
    assert audit_body(report)["write_clean"] == {"path": str(tmp_path / "clean.jsonl"), "written": True,
                                               "kept": 6, "dropped": 3, "note": "dropped 3 flagged rows, kept 6"}
    cleaned = (tmp_path / "clean.jsonl").read_text(encoding="utf-8").splitlines()
    assert cleaned == source.read_text(encoding="utf-8").splitlines()[:6]
    assert run_loop_audit(read_corpus(tmp_path / "clean.jsonl"), seed=0).finding is AuditFinding.CLEAN


def test_a_detector_that_sees_no_loop_makes_the_audit_invalid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loops_module, "detect_loop", lambda *a, **k: None)
    source = write_jsonl(tmp_path / "c.jsonl", CLEAN_ROWS)
    report = run_loop_audit(read_corpus(source), seed=0)
    assert gate_of(report) is Gate.INVALID
    assert any("repeated_phrase" in m for m in report.planted_missed)
    refused = with_clean_copy(report, source, tmp_path / "clean.jsonl", gate_of(report))
    assert refused.clean_copy is not None and not refused.clean_copy.written
    assert not (tmp_path / "clean.jsonl").exists()


def test_a_detector_that_flags_everything_fails_the_clean_control(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    always = LoopFinding("RUNAWAY_LOOP", 1, 3, 0, 1, "x")
    monkeypatch.setattr(loops_module, "detect_loop", lambda *a, **k: always)
    report = run_loop_audit(read_corpus(write_jsonl(tmp_path / "c.jsonl", CLEAN_ROWS)), seed=0)
    assert audit_body(report)["controls"]["clean_corpus_flags"] == 40
    assert gate_of(report) is Gate.INVALID


def test_escalation_chain_is_the_v9_increment_and_roman_numerals_are_not() -> None:
    assert escalation_chain("⊙ α? → αα. ⊙ αα? → ααα.") == ("α", 1, 3)
    assert escalation_chain("ψ one, ψψ two, ψψψ three") == ("ψ", 1, 3)
    assert escalation_chain("Chapter I, Chapter II, Chapter III; i, ii, iii") is None
    assert escalation_chain("ααα then αα then α") is None  # shrinking is not escalating
    assert escalation_chain("a see all; the bee buzzed; it's sooo good") is None


def test_echo_needs_a_real_prompt_and_sees_past_a_speaker_prefix() -> None:
    assert echoes_prompt("⊹: ⊙ α?", "⊙ α? → αα.")
    assert not echoes_prompt("Hello", "Hello! How can I help?")
    assert not echoes_prompt("What is Φ?", "Φ is 0.042.")


def test_duplicates_below_the_share_do_not_dominate() -> None:
    rows = [CorpusRow(i + 1, "Tell a story.", f"story number {i} about {w}", False)
            for i, w in enumerate(["cats", "dogs", "owls", "bees", "eels", "rats"])]
    rows += [CorpusRow(10 + i, "Tell a story.", "the same story", False) for i in range(3)]
    assert dominant_duplicates(rows) == []  # 3 of 9 rows: a third, not dominant


def test_synthetic_clean_corpus_is_seeded() -> None:
    a = clean_corpus(np.random.default_rng(5), rows=5)
    b = clean_corpus(np.random.default_rng(5), rows=5)
    assert a == b and a != clean_corpus(np.random.default_rng(6), rows=5)


@pytest.mark.parametrize(("text", "line", "message"), [
    ('{"prompt": "a", "completion": "b"}\n{"prompt": "a", "completion": \n', 2, "bad JSON"),
    ('{"prompt": "a", "completion": "b"}\n{"prompt": "a", "answer": "b"}\n', 2, "'completion': required"),
    ('{"prompt": "a", "completion": "b", "wieght": 2}\n', 1, "'wieght': unknown field"),
    ('{"input": "a"}\n', 1, "neither 'messages' nor"),
    ('{"messages": [{"role": "user", "content": "hi"}]}\n', 1, "no assistant message"),
    ('{"messages": [{"role": "robot", "content": "hi"}]}\n', 1, "role"),
])
def test_malformed_rows_name_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        read_corpus(path)
    assert info.value.line == line
    assert f"{path}:{line}" in str(info.value)


def test_empty_corpus_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="no rows"):
        read_corpus(path)


def test_write_clean_refuses_to_overwrite_its_input(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "c.jsonl", CLEAN_ROWS)
    with pytest.raises(InputError, match="overwrite"):
        audited = run_loop_audit(read_corpus(source), seed=0)
        with_clean_copy(audited, source, source, gate_of(audited))


def test_an_earlier_turn_of_a_chat_row_is_scanned_too(tmp_path: Path) -> None:
    multi = {"messages": [{"role": "user", "content": "⊙ α?"},
                          {"role": "assistant", "content": "⊙ α? → αα. ⊙ αα? → ααα."},
                          {"role": "user", "content": "⊙ ι?"}, {"role": "assistant", "content": "ι = AION"}]}
    rows = read_corpus(write_jsonl(tmp_path / "c.jsonl", [*CLEAN_ROWS, multi]))
    assert rows[-1].prompt == "⊙ ι?" and rows[-1].earlier == (("⊙ α?", "⊙ α? → αα. ⊙ αα? → ααα."),)
    assert "increment" in run_loop_audit(rows, seed=0).flagged[7].patterns
