"""The control rule: an instrument that missed a planted case or flagged a clean one makes the verdict INVALID."""

from __future__ import annotations

from forgegate.checks.loop_controls import ControlOutcome
from forgegate.core.verdict import Gate, Reason

CONTROL_RULE_SUFFIX = " controls"
"""Every control reason's rule is the instrument's name followed by this."""


def is_control_rule(rule: str) -> bool:
    """Whether a reason's rule is an instrument's controls (readers find the controls by this, not by wording)."""
    return rule.endswith(CONTROL_RULE_SUFFIX)


def control_reason(outcome: ControlOutcome) -> Reason:
    """One reason per instrument's controls, with the counts as numbers."""
    return Reason(
        f"{outcome.instrument}{CONTROL_RULE_SUFFIX}",
        Gate.PASS if outcome.passed else Gate.INVALID,
        f"planted loops found {outcome.found}/{outcome.planted}, clean texts flagged {outcome.flagged}/{outcome.clean}",
        numbers={"planted": outcome.planted, "found": outcome.found, "clean": outcome.clean,
                 "flagged": outcome.flagged},
    )
