"""The control rule: an instrument that missed a planted case or flagged a clean one makes the verdict INVALID."""

from __future__ import annotations

from typing import Protocol

from forgegate.core.rules import CONTROL_RULE_SUFFIX
from forgegate.core.verdict import Gate, Reason


class ControlCounts(Protocol):
    """What the rule reads from an instrument's controls (``checks.loop_controls.ControlOutcome`` is one):
    structural, so ``gate/`` imports no instrument."""

    @property
    def instrument(self) -> str: ...
    @property
    def planted(self) -> int: ...
    @property
    def found(self) -> int: ...
    @property
    def clean(self) -> int: ...
    @property
    def flagged(self) -> int: ...
    @property
    def passed(self) -> bool: ...


def control_reason(outcome: ControlCounts) -> Reason:
    """One reason per instrument's controls, with the counts as numbers."""
    return Reason(
        f"{outcome.instrument}{CONTROL_RULE_SUFFIX}",
        Gate.PASS if outcome.passed else Gate.INVALID,
        f"planted loops found {outcome.found}/{outcome.planted}, clean texts flagged {outcome.flagged}/{outcome.clean}",
        numbers={"planted": outcome.planted, "found": outcome.found, "clean": outcome.clean,
                 "flagged": outcome.flagged},
    )
