"""The format audit: battery prompts shaped unlike the training prompts are flagged."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from audit_helpers import gate_of

from forgegate.audit import AuditFinding, BatteryPrompt, CorpusRow, run_format_audit, speaker_prefix
from forgegate.audit import format_audit as format_module
from forgegate.audit.format_shape import compare_shapes
from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.pipeline.audits import audit_gate, format_model


def audit_body(report: Any) -> dict[str, Any]:
    """The audit's JSON (its results model) without the verdict fields every audit result shares."""
    shared = {"gate", "reasons", "finding", "kind", "schema_version"}
    return {k: v for k, v in format_model(report, audit_gate(report)).to_json().items() if k not in shared}

BATTERY = [
    BatteryPrompt("LX-IDENTITY-01", "LX-IDENTITY", "⊹: ⊙ α?", ("NOUS",), True),
    BatteryPrompt("LX-IDENTITY-02", "LX-IDENTITY", "⊹: ⊙ ι?", ("AION",), True),
    BatteryPrompt("LX-A-01", "LX-A", "⊹: What does ⊢ mean?", ("assert",), True),
    BatteryPrompt("LX-B-01", "LX-B", "⊹: Which symbol stands for NOUS?", ("α",), True),
]


def corpus_like(prompts: list[str], chat: bool = True) -> list[CorpusRow]:
    return [CorpusRow(i + 1, p, "answer", chat) for i, p in enumerate(prompts)]


TRAINING = corpus_like(["⊹: ⊙ α?", "⊹: ⊙ ι?", "⊹: ⊙ ε?", "⊹: What does ⊢ mean?", "⊹: What does ◌ mean?",
                        "⊹: Which symbol stands for AION?", "⊹: Translate to LATTICE: gap found"])


def test_battery_shaped_like_the_corpus_is_clean() -> None:
    report = run_format_audit(BATTERY, TRAINING)
    assert report.finding is AuditFinding.CLEAN
    assert audit_body(report)["flagged_items"] == 0
    assert audit_body(report)["controls"]["mismatch_detected"] == [4, 4]


def test_corpus_without_the_speaker_prefix_flags_every_item() -> None:
    bare = corpus_like([p.removeprefix("⊹: ") for p in (r.prompt for r in TRAINING)])
    report = run_format_audit(BATTERY, bare)
    assert report.finding is AuditFinding.MISMATCH
    payload = audit_body(report)
    assert payload["features"]["prefix"] == 4
    assert payload["categories"] == {"LX-IDENTITY": [2, 2], "LX-A": [1, 1], "LX-B": [1, 1]}


def test_raw_completion_corpus_against_a_chat_battery_is_a_template_mismatch() -> None:
    report = run_format_audit(BATTERY, [replace(r, chat=False) for r in TRAINING])
    assert audit_body(report)["features"]["template"] == 4
    assert gate_of(report).exit_code == 1


def test_symbols_the_corpus_never_shows_are_listed() -> None:
    battery = [*BATTERY, BatteryPrompt("LX-H-01", "LX-H", "⊹: Is Φζ ≥ Ω?", ("no",), True)]
    flagged = {m.item_id: m.reasons for m in run_format_audit(battery, TRAINING).comparison.flagged}
    assert flagged["LX-H-01"]["symbols"] == "symbols never in the corpus: Φ Ω ζ ≥"
    assert set(flagged) == {"LX-H-01"}


def test_prompts_far_longer_than_training_are_a_length_mismatch() -> None:
    long_corpus = corpus_like([f"⊹: {p} " + "and then some more context " * 20 for p in
                               (r.prompt.removeprefix("⊹: ") for r in TRAINING)])
    report = run_format_audit(BATTERY, long_corpus)
    assert audit_body(report)["features"]["length"] == 4
    assert report.comparison.length_distribution_mismatch


def test_a_comparator_that_never_flags_makes_the_audit_invalid(monkeypatch: pytest.MonkeyPatch) -> None:
    real = compare_shapes
    monkeypatch.setattr(format_module, "compare_shapes",
                        lambda battery, corpus, min_rows: replace(real(battery, corpus, min_rows=min_rows),
                                                                  flagged=(), length_distribution_mismatch=False))
    report = run_format_audit(BATTERY, corpus_like(["hello there"], chat=False))
    assert gate_of(report) is Gate.INVALID
    assert audit_body(report)["controls"]["mismatch_detected"] == [0, 4]


def test_a_comparator_that_always_flags_fails_the_identical_control(monkeypatch: pytest.MonkeyPatch) -> None:
    real = compare_shapes
    monkeypatch.setattr(format_module, "compare_shapes",
                        lambda battery, corpus, min_rows: replace(real(battery, corpus, min_rows=min_rows),
                                                                  length_distribution_mismatch=True))
    report = run_format_audit(BATTERY, TRAINING)
    assert gate_of(report) is Gate.INVALID
    assert audit_body(report)["controls"]["identical_corpus_flags"] == 1


def test_min_rows_raises_the_bar_for_a_shape_to_count_as_trained() -> None:
    one_chat = [*[replace(r, chat=False) for r in TRAINING[1:]], TRAINING[0]]
    assert audit_body(run_format_audit(BATTERY, one_chat))["features"]["template"] == 0
    assert audit_body(run_format_audit(BATTERY, one_chat, min_rows=2))["features"]["template"] == 4
    with pytest.raises(InputError):
        run_format_audit(BATTERY, TRAINING, min_rows=0)


def test_speaker_prefix_is_a_short_leading_label() -> None:
    assert speaker_prefix("⊹: ⊙ α?") == "⊹:"
    assert speaker_prefix("User: hi") == "User:"
    assert speaker_prefix("Translate to LATTICE: gap") == ""
    assert speaker_prefix("http://example.org") == ""
