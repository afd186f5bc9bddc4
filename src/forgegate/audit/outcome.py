"""Audit gate words and controls: what every audit reports beside its findings."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from forgegate.core.verdict import Gate


class AuditGate(StrEnum):
    """The word an audit prints; each maps onto the contract's exit codes.

    ``CLEAN`` exits 0, a finding (``LEAK``, ``LOOPS``, ``MISMATCH``, ``CONTAMINATED``)
    exits 1, ``INVALID`` (a control failed: the instrument may be blind) exits 4.
    """

    CLEAN = "CLEAN"
    LEAK = "LEAK"
    LOOPS = "LOOPS"
    MISMATCH = "MISMATCH"
    CONTAMINATED = "CONTAMINATED"
    INVALID = "INVALID"

    @property
    def verdict_gate(self) -> Gate:
        if self is AuditGate.CLEAN:
            return Gate.PASS
        if self is AuditGate.INVALID:
            return Gate.INVALID
        return Gate.FAIL

    @property
    def exit_code(self) -> int:
        return self.verdict_gate.exit_code


@dataclass(frozen=True)
class Control:
    """One control run: its name, whether it passed, and the numbers behind it."""

    name: str
    passed: bool
    detail: str


def decide(controls: tuple[Control, ...], found: bool, finding: AuditGate) -> AuditGate:
    """INVALID when any control failed (or none ran), else ``finding`` when found, else CLEAN."""
    if not controls or not all(c.passed for c in controls):
        return AuditGate.INVALID
    return finding if found else AuditGate.CLEAN
