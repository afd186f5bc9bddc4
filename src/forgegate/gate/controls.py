"""The control rule: an instrument that missed a planted case or flagged a clean one makes the verdict INVALID."""

from __future__ import annotations

from forgegate.checks.controls import ControlOutcome
from forgegate.core.verdict import Gate, Reason


def control_reason(outcome: ControlOutcome) -> Reason:
    """One reason per instrument's controls, with the counts as numbers."""
    return Reason(
        f"{outcome.instrument} controls",
        Gate.PASS if outcome.passed else Gate.INVALID,
        f"planted loops found {outcome.found}/{outcome.planted}, clean texts flagged {outcome.flagged}/{outcome.clean}",
        numbers={"planted": outcome.planted, "found": outcome.found, "clean": outcome.clean,
                 "flagged": outcome.flagged},
    )
