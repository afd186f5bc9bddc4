"""The contamination audit: battery items found verbatim or by 13-gram overlap in the corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from audit_helpers import TEXTS, gate_of

from forgegate.audit import AuditFinding, BatteryPrompt, CorpusRow, run_contamination_audit
from forgegate.audit import contamination as contamination_module
from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.pipeline.audits import audit_gate, contamination_model


def audit_body(report: Any) -> dict[str, Any]:
    """The audit's JSON (its results model) without the verdict fields every audit result shares."""
    shared = {"gate", "reasons", "finding", "kind", "schema_version"}
    body = contamination_model(report, audit_gate(report)).to_json()
    return {k: v for k, v in body.items() if k not in shared}

PASSAGE = ("It is a truth universally acknowledged, that a single man in possession of a good fortune, "
           "must be in want of a wife.")
BATTERY = [
    BatteryPrompt("LIT-01", "LIT", f"Continue the passage: {PASSAGE}", ("wife",), True),
    BatteryPrompt("LX-IDENTITY-01", "LX-IDENTITY", "⊙ α?", ("NOUS",), True),
    BatteryPrompt("LX-A-01", "LX-A", "What does ⊢ mean?", ("assert",), True),
    BatteryPrompt("LX-NEGATIVE-10", "LX-NEGATIVE", "", ("◌",), True),
]


def novel_rows(lines: int = 60) -> list[CorpusRow]:
    """Rows of Sense and Sensibility: real prose that holds none of the battery."""
    text = (TEXTS / "austen-sense-and-sensibility.txt").read_text(encoding="utf-8").splitlines()[200:200 + lines]
    return [CorpusRow(i + 1, "Continue:", line, False) for i, line in enumerate(text) if line.strip()]


def test_clean_corpus_is_clean_and_short_items_are_counted() -> None:
    report = run_contamination_audit(BATTERY, novel_rows(), seed=0)
    payload = audit_body(report)
    assert report.finding is AuditFinding.CLEAN
    assert payload["contaminated"] == 0
    assert payload["short_items_whole_match"] == 2
    assert payload["items_without_words"] == ["LX-NEGATIVE-10"]
    assert payload["controls"] == {"planted_found": [3, 3], "clean_corpus_hits": 0}


def test_a_13_word_window_in_different_case_and_punctuation_is_found() -> None:
    window = "A SINGLE MAN -- in possession of a good fortune; must be in want of a wife!"
    rows = [*novel_rows(), CorpusRow(500, "Quote something.", f"As they say: {window} Indeed.", False)]
    report = run_contamination_audit(BATTERY, rows, seed=0)
    (hit,) = report.hits
    assert (hit.item_id, hit.method, hit.lines, hit.with_answer) == ("LIT-01", "ngram", (500,), True)
    assert 0 < hit.overlap < 1
    assert report.finding is AuditFinding.CONTAMINATED


def test_twelve_words_are_not_a_13_gram_but_are_with_ngram_12() -> None:
    rows = [CorpusRow(1, "q", "single man in possession of a good fortune must be in want", False)]
    assert run_contamination_audit(BATTERY, rows, seed=0).hits == ()
    assert [h.item_id for h in run_contamination_audit(BATTERY, rows, seed=0, n=12).hits] == ["LIT-01"]


def test_short_item_matches_whole_and_word_aligned_only() -> None:
    rows = [CorpusRow(1, "⊹: ⊙ α?", "α = NOUS", True), CorpusRow(2, "what does ⊢ meaning", "x", False)]
    report = run_contamination_audit(BATTERY, rows, seed=0)
    assert [(h.item_id, h.method, h.lines, h.with_answer) for h in report.hits] == [
        ("LX-IDENTITY-01", "whole-item", (1,), True)]


def test_an_index_that_finds_nothing_makes_the_audit_invalid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(contamination_module.ContaminationIndex, "scan", lambda self, corpus: [])
    report = run_contamination_audit(BATTERY, novel_rows(), seed=0)
    assert gate_of(report) is Gate.INVALID
    assert audit_body(report)["controls"]["planted_found"] == [0, 3]


def test_a_matcher_that_matches_every_row_fails_the_clean_control(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(contamination_module, "normalise_words", lambda text: ["⊙", "α"])
    report = run_contamination_audit(BATTERY, novel_rows(), seed=0)
    assert audit_body(report)["controls"]["clean_corpus_hits"] > 0
    assert gate_of(report) is Gate.INVALID


def test_ngram_below_one_is_refused() -> None:
    with pytest.raises(InputError, match="at least 1"):
        run_contamination_audit(BATTERY, novel_rows(5), seed=0, n=0)


def test_the_bundled_battery_reads_through_the_battery_loader(tmp_path: Path) -> None:
    from forgegate.audit import load_battery_prompts
    from forgegate.battery import bundled_battery_path

    items = load_battery_prompts(bundled_battery_path())
    assert len(items) == 90 and items[0].item_id == "LX-A-01"
    empty = tmp_path / "b.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError):
        load_battery_prompts(empty)
