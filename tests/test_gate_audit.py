"""The audit rule (forgegate.gate.audit): a blind control is INVALID whatever was found, a finding FAIL, else PASS."""

from __future__ import annotations

import pytest

from forgegate.audit.outcome import AuditFinding, Control
from forgegate.core.verdict import Gate
from forgegate.gate.audit import audit_verdict

OK = Control("planted_found", True, "3/3 planted items found")
BLIND = Control("clean_corpus", False, "synthetic clean corpus: 2 items matched (must be 0)")


@pytest.mark.parametrize(("controls", "finding", "gate"), [
    ((OK,), AuditFinding.CLEAN, Gate.PASS),
    ((OK,), AuditFinding.LEAK, Gate.FAIL),
    ((OK, BLIND), AuditFinding.CONTAMINATED, Gate.INVALID),
    ((OK, BLIND), AuditFinding.CLEAN, Gate.INVALID),
    ((), AuditFinding.CLEAN, Gate.INVALID),
])
def test_the_audit_gate(controls: tuple[Control, ...], finding: AuditFinding, gate: Gate) -> None:
    verdict = audit_verdict(controls, finding)
    assert verdict.gate is gate


def test_every_control_and_the_finding_are_reasons() -> None:
    verdict = audit_verdict((OK, BLIND), AuditFinding.LOOPS)
    assert [(r.rule, r.outcome) for r in verdict.reasons] == [
        ("control planted_found", Gate.PASS), ("control clean_corpus", Gate.INVALID), ("nothing found", Gate.FAIL)]
    assert verdict.reasons[1].detail == BLIND.detail


def test_a_leak_in_the_split_the_fixture_was_drawn_from_fails_and_a_clean_one_says_nothing() -> None:
    from forgegate.gate.audit import fixture_split_reason

    reason = fixture_split_reason("val", 2, 200)
    assert reason is not None and reason.outcome is Gate.FAIL and "'val' is not clean (2 of 200 pairs" in reason.detail
    assert fixture_split_reason("val", 0, 200) is None
