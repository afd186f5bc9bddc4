"""What every audit measures beside its findings: the controls it ran, and the finding word.

The audit only measures; which gate word that earns is decided in ``forgegate.gate.audit``.
"""

from __future__ import annotations

from dataclasses import dataclass

from forgegate.core.audit_finding import AuditFinding

__all__ = ["AuditFinding", "Control", "finding_of"]


@dataclass(frozen=True)
class Control:
    """One control run: its name, whether it passed, and the numbers behind it."""

    name: str
    passed: bool
    detail: str


def finding_of(found: bool, word: AuditFinding) -> AuditFinding:
    """``word`` when the audit found something, else CLEAN."""
    return word if found else AuditFinding.CLEAN
